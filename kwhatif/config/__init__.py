"""Scheduler profiles: the v1.34.1 default and KubeSchedulerConfiguration files (reference §1)."""
