"""Scheduler profiles: the v1.34.1 default and KubeSchedulerConfiguration files
(defaults.go:SetDefaults_KubeSchedulerConfiguration)."""
