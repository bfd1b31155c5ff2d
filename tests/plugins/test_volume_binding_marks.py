"""The volume bindings Reserve makes are part of a snapshot mark: a what-if that binds a claim to a
volume and is then undone leaves the volume available for the next try (Snapshot.attach)."""

from __future__ import annotations

from fractions import Fraction

from kwhatif.api.cluster import Cluster
from kwhatif.api.storage import PersistentVolume, PersistentVolumeClaim
from kwhatif.plugins.volume_binding.storage import storage_of
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import make_node


def test_a_binding_made_after_a_mark_is_taken_back() -> None:
    pvc = PersistentVolumeClaim("default", "data", storage_class_name="manual", access_modes=("ReadWriteOnce",),
                                requested_storage=Fraction(2**30))
    pv = PersistentVolume("pv-1", storage_class_name="manual", capacity=Fraction(2**30),
                          access_modes=("ReadWriteOnce",), phase="Available")
    snap = Snapshot.build(Cluster(nodes=[make_node("n1")], pvcs={("default", "data"): pvc}, pvs={"pv-1": pv}), [])
    storage = storage_of(snap)
    mark = snap.mark()
    generation = storage.generation
    storage.bind("default/p", "n1", pvc, pv)
    assert storage.pv("pv-1").phase == "Bound"  # type: ignore[union-attr]
    snap.restore(mark)
    assert storage.pv("pv-1") == pv and storage.pvc("default", "data") == pvc
    assert storage.reservations == {}
    assert storage.generation > generation + 1  # never back to a number a cache may hold for another state


def test_an_index_made_after_the_mark_goes_back_to_its_first_state() -> None:
    pv = PersistentVolume("pv-1", storage_class_name="manual", capacity=Fraction(2**30), phase="Available")
    pvc = PersistentVolumeClaim("default", "data", storage_class_name="manual", requested_storage=Fraction(1))
    snap = Snapshot.build(Cluster(nodes=[make_node("n1")], pvcs={("default", "data"): pvc}, pvs={"pv-1": pv}), [])
    mark = snap.mark()  # before any plugin asked for the storage view
    storage = storage_of(snap)
    storage.bind("default/p", "n1", pvc, pv)
    snap.restore(mark)
    assert storage.pv("pv-1") == pv
