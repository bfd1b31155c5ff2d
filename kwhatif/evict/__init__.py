"""`kwhatif evict`: node-pressure eviction as the kubelet ranks it (`ranking`), from pod usage
an operator can collect (`usage`)."""

from __future__ import annotations

from kwhatif.evict.ranking import SIGNALS, EvictionPlan, plan_eviction
from kwhatif.evict.usage import read_usage

__all__ = ["SIGNALS", "EvictionPlan", "plan_eviction", "read_usage"]
