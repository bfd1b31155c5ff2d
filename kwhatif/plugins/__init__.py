"""One module per kube-scheduler plugin, and the registry of in-tree plugins (`registry.py`)."""
