"""kwhatif: what-if analysis for Kubernetes scheduling, faithful to kube-scheduler v1.34.1."""

__version__ = "0.1.0"
