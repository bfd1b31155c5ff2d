"""The one extension-point table (framework.interfaces.POINTS) and what is derived from it."""

from __future__ import annotations

from dataclasses import fields

from kwhatif.config.profile import KUBE_POINTS
from kwhatif.config.schema import CONFIG_SCHEMA
from kwhatif.framework.interfaces import EXTENSION_POINTS, FRAMEWORK_ORDER, POINTS
from kwhatif.framework.runtime import PluginSet


def test_the_v1_plugins_fields_follow_the_table_then_multi_point():
    plugins = CONFIG_SCHEMA.fields["profiles"].item.fields["plugins"]
    assert tuple(plugins.fields) == KUBE_POINTS + ("multiPoint",)
    assert KUBE_POINTS == ("preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore", "score",
                           "reserve", "permit", "preBind", "bind", "postBind")


def test_new_framework_walks_every_extension_point_once_in_kube_schedulers_order():
    assert [p.name for p in FRAMEWORK_ORDER] == ["preFilter", "filter", "postFilter", "reserve", "preScore", "score",
                                                 "preBind", "bind", "postBind", "permit", "preEnqueue", "queueSort"]


def test_the_runner_has_one_list_per_extension_point_it_calls():
    runner_fields = [p.runner_field for p in POINTS if p.runner_field is not None]
    assert runner_fields == [f.name for f in fields(PluginSet) if f.name != "weights"]
    assert all(p.name in EXTENSION_POINTS for p in POINTS if p.runner_field is not None)
