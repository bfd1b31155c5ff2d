"""PodDisruptionBudget accounting for victims (preemption.go:filterPodsWithPDBViolation)."""

from __future__ import annotations

from typing import Sequence

from kwhatif.api.objects import PodDisruptionBudget
from kwhatif.snapshot.pod_info import PodInfo


def split_by_pdb_violation(
    victims: Sequence[PodInfo], pdbs: Sequence[PodDisruptionBudget]
) -> tuple[list[PodInfo], list[PodInfo], dict[str, list[str]]]:
    """Walk the victims in importance order, spending each matching PDB's allowed disruptions;
    a pod that drives some budget below zero is violating. Returns (violating, non-violating,
    pod key → PDBs it would break), the last for explanations."""
    allowed = [pdb.disruptions_allowed for pdb in pdbs]
    violating, non_violating = [], []
    broken: dict[str, list[str]] = {}
    for info in victims:
        pod = info.pod
        breaks = []
        if pod.labels:
            for i, pdb in enumerate(pdbs):
                if pdb.namespace != pod.namespace or pdb.selector is None or pdb.selector.is_empty:
                    continue
                if not pdb.selector.matches(pod.labels) or pod.name in pdb.disrupted_pods:
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    breaks.append(pdb.key)
        if breaks:
            violating.append(info)
            broken[info.key] = breaks
        else:
            non_violating.append(info)
    return violating, non_violating, broken
