"""Which nodes an operation acts on: a node name, or a label selector in kubectl's `-l` form
(`topology.kubernetes.io/zone=us-east-1b`, `a=b,c!=d`, `!spot`, `zone=a,gpu`). A bare word is a
node name, so a lone "has the label" requirement needs a comma (`gpu,`) — or a prefix
(`example.com/gpu`): a node name never holds `/`."""

from __future__ import annotations

from kwhatif.api.cluster import Cluster
from kwhatif.api.names import is_dns1123_subdomain, is_qualified_name, is_valid_label_value
from kwhatif.api.objects import Node
from kwhatif.api.selectors import LabelSelector, Requirement
from kwhatif.errors import InputError


def is_selector(target: str) -> bool:
    """A node name (an RFC 1123 subdomain) never holds `=`, `!`, `,` or `/`: a target that does
    is a label selector — `topology.kubernetes.io/zone` alone, the nodes that have that label."""
    return any(c in target for c in "=!,/")


def parse_selector(text: str) -> LabelSelector:
    """kubectl's equality-based selector: `k=v`, `k==v`, `k!=v`, `k` (exists), `!k` (absent), ANDed
    with commas (labels.Parse, without the set-based `in (...)` forms). A key that is no label key or
    a value that is no label value (`!`, `!!x`, `!=`) is refused, as labels.Parse refuses it: read
    as written, it would select every node."""
    requirements = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        if "!=" in part:
            key, value = part.split("!=", 1)
            requirements.append(Requirement(key.strip(), "NotIn", (value.strip(),)))
        elif "=" in part:
            key, value = part.replace("==", "=", 1).split("=", 1)
            requirements.append(Requirement(key.strip(), "In", (value.strip(),)))
        elif part.startswith("!"):
            requirements.append(Requirement(part[1:].strip(), "DoesNotExist"))
        else:
            requirements.append(Requirement(part, "Exists"))
    for r in requirements:
        wrong = [*is_qualified_name(r.key), *(problem for v in r.values for problem in is_valid_label_value(v))]
        if wrong:
            shown = " ".join(repr(t) for t in (r.key, *r.values))
            raise ValueError(f"invalid label selector: {shown}: {wrong[0]}")
    return LabelSelector(tuple(requirements))


def target_nodes(cluster: Cluster, target: str, option: str) -> list[Node]:
    """The nodes `target` names, in input order; none is bad input (the option is named)."""
    if is_selector(target):
        try:
            selector = parse_selector(target)
        except ValueError as err:
            raise InputError(f"--{option} {target}: {err}") from None
        found = [n for n in cluster.nodes if selector.matches(n.labels)]
        if not found:
            raise InputError(f"--{option} {target}: no node matches this label selector")
        return found
    found = [n for n in cluster.nodes if n.name == target]
    if not found and is_dns1123_subdomain(target):
        raise InputError(f"--{option} {target}: neither a node name (an RFC 1123 subdomain) nor a label selector "
                         "kwhatif reads (k=v, k!=v, !k, prefix/k, joined by commas; a key alone without a prefix "
                         "ends with a comma, `k,`; not the set-based `in (...)`)")
    if not found:
        raise InputError(f"--{option} {target}: no such node in the cluster")
    return found


def replace_node(cluster: Cluster, node: Node) -> None:
    """Put the changed `node` where the node of the same name was (input order is kept)."""
    cluster.nodes = [node if n.name == node.name else n for n in cluster.nodes]
