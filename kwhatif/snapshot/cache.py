"""One way to keep a value derived from a snapshot: `for_snapshot`.

Plugins derive things from the snapshot of the current run — the storage lookups shared by the
volume plugins, InterPodAffinity's index of existing pods' terms, ImageLocality's spread-scaled
image sizes of a pod — and keep them where they live longest: a module, the plugin, or the pod's
`PodInfo.derived`. Those holders outlive a snapshot (a library caller simulates many clusters with
the same plugins and pods), so each entry is tagged with its snapshot and rebuilt when asked for
another one. The tag is a weak reference: a holder never keeps an old snapshot alive, and an entry
can never be served to a new snapshot that happens to reuse a dead one's `id`.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable, MutableMapping
from typing import Any, TypeVar

T = TypeVar("T")


def for_snapshot(store: MutableMapping[Any, Any], key: Hashable, snapshot: object, build: Callable[[], T],
                 drop_with_snapshot: bool = False) -> T:
    """`store[key]` as built by `build()` for `snapshot`; built again when the snapshot is another.
    `drop_with_snapshot` removes the entry when the snapshot is freed: for a store that lives for
    the whole process (a module's), keyed by snapshot, which would otherwise keep dead entries."""
    entry = store.get(key)
    if entry is not None and entry[0]() is snapshot:
        return entry[1]
    value = build()
    if drop_with_snapshot:
        tag = weakref.ref(snapshot, lambda _ref: store.pop(key, None))
    else:
        tag = weakref.ref(snapshot)
    store[key] = (tag, value)
    return value
