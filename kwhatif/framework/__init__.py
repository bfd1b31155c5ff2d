"""Status, CycleState, extension-point protocols, the runner and the scheduling loop.

The framework knows no concrete plugin: profiles are assembled from the registry in
`kwhatif.engine` and handed to it.
"""
