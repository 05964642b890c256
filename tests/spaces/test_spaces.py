"""Differential tests of nbgym.spaces against gymnasium 1.4.0's gymnasium.spaces.

Every space is built twice from one builder, once with each library's module, and everything a user sees
is compared exactly: samples (values, dtypes, Python / numpy scalar types) for several seeds and sequences
of samples, masked and probability sampling, the seeds that seeding returns, ``contains``, repr, equality,
JSON conversion, pickling, and the exception types and messages of bad input.

The helpers here (``CATALOG``, ``assert_same``, ``both``) are imported by the other test_spaces_* files.
"""

from __future__ import annotations

import copy
import pickle
import re
import warnings
from collections.abc import Callable
from typing import Any

import gymnasium.error as gym_error
import gymnasium.spaces as gs
import numpy as np
import pytest

import nbgym.error as nb_error
import nbgym.spaces as ns

# Bad-input tables build Boxes from float64 arrays; the warning itself is compared in test_box_precision_warning.
pytestmark = pytest.mark.filterwarnings("ignore:.*precision lowered by casting:UserWarning")

SEEDS = (0, 1, 42, 123, 2**40 + 7)

Builder = Callable[[Any], Any]

# id -> builder(S) where S is gymnasium.spaces or nbgym.spaces.
FUNDAMENTAL: dict[str, Builder] = {
    "box": lambda S: S.Box(-1, 1, shape=(3,)),
    "box_2d_f64": lambda S: S.Box(0.0, 2.5, shape=(2, 3), dtype=np.float64),
    "box_scalar_shape": lambda S: S.Box(0, 1, shape=()),
    "box_scalar_shape_int": lambda S: S.Box(-3, 3, shape=(), dtype=np.int16),
    "box_scalar_shape_int64_unbounded": lambda S: S.Box(-np.inf, 3, shape=(), dtype=np.int64),
    "box_f16": lambda S: S.Box(-2, 2, shape=(4,), dtype=np.float16),
    "box_arrays": lambda S: S.Box(np.array([-1.0, 0.0, 2.0], np.float32), np.array([1.0, 0.5, 3.0], np.float32)),
    "box_mixed_bounds": lambda S: S.Box(
        np.array([-1.0, -np.inf, 0.0, -np.inf, 3.0], np.float32), np.array([1.0, 2.0, np.inf, np.inf, 3.0], np.float32)
    ),
    "box_unbounded": lambda S: S.Box(-np.inf, np.inf, shape=(2, 2), dtype=np.float64),
    "box_int64": lambda S: S.Box(0, 10, shape=(4,), dtype=np.int64),
    "box_int64_wide": lambda S: S.Box(-(2**62), 2**62, shape=(3,), dtype=np.int64),
    "box_int8": lambda S: S.Box(-128, 127, shape=(5,), dtype=np.int8),
    "box_uint8_image": lambda S: S.Box(0, 255, shape=(2, 2, 3), dtype=np.uint8),
    "box_bool": lambda S: S.Box(0, 1, shape=(4,), dtype=np.bool_),
    "box_int_half_bounded": lambda S: S.Box(np.array([-np.inf, 0.0]), np.array([5.0, np.inf]), dtype=np.int32),
    "box_empty": lambda S: S.Box(0, 1, shape=(0,)),
    "discrete": lambda S: S.Discrete(5),
    "discrete_start": lambda S: S.Discrete(3, start=-1),
    "discrete_int32": lambda S: S.Discrete(7, dtype=np.int32),
    "discrete_uint8_start": lambda S: S.Discrete(4, start=2, dtype=np.uint8),
    "discrete_one": lambda S: S.Discrete(1),
    "multidiscrete": lambda S: S.MultiDiscrete([3, 4, 5]),
    "multidiscrete_2d": lambda S: S.MultiDiscrete(np.array([[2, 3], [4, 5]])),
    "multidiscrete_start": lambda S: S.MultiDiscrete([3, 4], start=[-1, 5]),
    "multidiscrete_int8": lambda S: S.MultiDiscrete([2, 3], dtype=np.int8),
    "multibinary": lambda S: S.MultiBinary(5),
    "multibinary_2d": lambda S: S.MultiBinary([2, 3]),
    "text": lambda S: S.Text(5),
    "text_abc_min0": lambda S: S.Text(4, min_length=0, charset="abc"),
    "text_set": lambda S: S.Text(6, min_length=2, charset=frozenset("zyx01")),
}

COMPOSITE: dict[str, Builder] = {
    "tuple": lambda S: S.Tuple((S.Discrete(2), S.Box(-1, 1, shape=(2,)))),
    "tuple_empty": lambda S: S.Tuple(()),
    "dict": lambda S: S.Dict({"position": S.Box(-1, 1, shape=(2,)), "color": S.Discrete(3)}),
    "dict_kwargs": lambda S: S.Dict(vector=S.Box(0, 1, shape=(3,)), discrete=S.Discrete(4)),
    "dict_unsorted": lambda S: S.Dict({"b": S.Discrete(2), "a": S.MultiBinary(2)}, sort_keys=False),
    "dict_nested": lambda S: S.Dict(
        {
            "ext": S.MultiDiscrete([5, 2, 2]),
            "inner": S.Dict(
                {
                    "charge": S.Discrete(100),
                    "checks": S.MultiBinary(4),
                    "job": S.Tuple((S.Discrete(5), S.Box(0, 100, shape=()))),
                }
            ),
        }
    ),
    "dict_with_text": lambda S: S.Dict({"name": S.Text(3, charset="ab"), "n": S.Discrete(2)}),
    "sequence": lambda S: S.Sequence(S.Box(0, 1)),
    "sequence_discrete": lambda S: S.Sequence(S.Discrete(3)),
    "sequence_stack": lambda S: S.Sequence(S.Box(0, 1, shape=(2,)), stack=True),
    "sequence_stack_dict": lambda S: S.Sequence(S.Dict(a=S.Discrete(3), b=S.Box(-1, 1, shape=(2,))), stack=True),
    "oneof": lambda S: S.OneOf((S.Discrete(2), S.Box(-1, 1, shape=(2,)))),
    "oneof_three": lambda S: S.OneOf((S.MultiBinary(3), S.Discrete(4, start=1), S.Text(2, charset="xy"))),
    "graph": lambda S: S.Graph(S.Box(low=-100, high=100, shape=(3,)), S.Discrete(3)),
    "graph_no_edges": lambda S: S.Graph(S.Discrete(4), None),
    "graph_box_edges": lambda S: S.Graph(S.Box(0, 1, shape=(2,)), S.Box(-1, 1, shape=(1,))),
    "tuple_with_sequence": lambda S: S.Tuple((S.Sequence(S.Discrete(2)), S.Discrete(3))),
    "dict_with_graph": lambda S: S.Dict(g=S.Graph(S.Discrete(3), S.Discrete(2)), d=S.Discrete(2)),
}

CATALOG: dict[str, Builder] = {**FUNDAMENTAL, **COMPOSITE}


def both(builder: Builder, **kwargs: Any) -> tuple[Any, Any]:
    """The nbgym and the gymnasium space built by ``builder``, each then seeded with ``kwargs['seed']``."""
    ours, theirs = builder(ns), builder(gs)
    if "seed" in kwargs:
        assert_same(ours.seed(kwargs["seed"]), theirs.seed(kwargs["seed"]))
    return ours, theirs


def assert_same(ours: Any, theirs: Any, path: str = "value") -> None:
    """Asserts that ``ours`` (from nbgym) is exactly ``theirs`` (from gymnasium): types, dtypes and values."""
    if isinstance(theirs, gs.GraphInstance):
        assert isinstance(ours, ns.GraphInstance), f"{path}: {type(ours)} is not a GraphInstance"
        for field in theirs._fields:
            assert_same(getattr(ours, field), getattr(theirs, field), f"{path}.{field}")
    elif isinstance(theirs, np.ndarray):
        assert isinstance(ours, np.ndarray), f"{path}: {type(ours)} is not an ndarray"
        assert ours.dtype == theirs.dtype, f"{path}: dtype {ours.dtype} != {theirs.dtype}"
        assert ours.shape == theirs.shape, f"{path}: shape {ours.shape} != {theirs.shape}"
        np.testing.assert_array_equal(ours, theirs, err_msg=path)
    elif isinstance(theirs, dict):
        assert type(ours) is dict, f"{path}: {type(ours)} is not a dict"
        assert list(ours) == list(theirs), f"{path}: keys {list(ours)} != {list(theirs)}"
        for key in theirs:
            assert_same(ours[key], theirs[key], f"{path}[{key!r}]")
    elif isinstance(theirs, (tuple, list)):
        assert type(ours) is type(theirs), f"{path}: {type(ours)} is not {type(theirs)}"
        assert len(ours) == len(theirs), f"{path}: length {len(ours)} != {len(theirs)}"
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            assert_same(a, b, f"{path}[{i}]")
    else:
        assert type(ours) is type(theirs), f"{path}: {type(ours)} is not {type(theirs)}"
        assert ours == theirs, f"{path}: {ours!r} != {theirs!r}"


def _normalise(text: str) -> str:
    return text.replace("gymnasium", "nbgym")


def outcome(call: Callable[[Any], Any], S: Any) -> tuple[str, Any]:
    """``("ok", result)`` or ``("raised", (exception type name, message))`` of ``call(S)``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", call(S)
        except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
            return "raised", (type(e).__name__, _normalise(str(e)))


def assert_same_outcome(call: Callable[[Any], Any]) -> None:
    """``call`` with nbgym.spaces and with gymnasium.spaces returns the same value or raises alike."""
    ours, theirs = outcome(call, ns), outcome(call, gs)
    assert ours[0] == theirs[0], f"nbgym {ours} vs gymnasium {theirs}"
    if ours[0] == "raised":
        assert ours[1] == theirs[1]
    else:
        assert_same(ours[1], theirs[1])


# ---------------------------------------------------------------------------------------------------
# Samples and seeding
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", list(CATALOG))
def test_samples_are_bit_identical(name: str, seed: int) -> None:
    ours, theirs = both(CATALOG[name], seed=seed)
    for _ in range(4):
        assert_same(ours.sample(), theirs.sample())


def test_golden_dict_sample() -> None:
    space = ns.Dict({"position": ns.Box(-1, 1, shape=(2,)), "color": ns.Discrete(3)}, seed=42)
    sample = space.sample()
    assert list(sample) == ["color", "position"]
    assert type(sample["color"]) is np.int64 and sample["color"] == 0
    assert sample["position"].dtype == np.float32
    np.testing.assert_array_equal(sample["position"], np.array([-0.3991573, 0.21649833], dtype=np.float32))


@pytest.mark.parametrize(
    "build",
    [
        lambda S, seed: S.Box(-1, 1, shape=(3,), seed=seed),
        lambda S, seed: S.Discrete(5, seed=seed),
        lambda S, seed: S.MultiDiscrete([3, 4], seed=seed),
        lambda S, seed: S.MultiBinary(4, seed=seed),
        lambda S, seed: S.Text(5, seed=seed),
        lambda S, seed: S.Tuple((S.Discrete(2), S.Box(0, 1)), seed=seed),
        lambda S, seed: S.Dict(a=S.Discrete(2), b=S.Box(0, 1), seed=seed),
        lambda S, seed: S.Sequence(S.Discrete(4), seed=seed),
        lambda S, seed: S.OneOf((S.Discrete(2), S.Box(0, 1)), seed=seed),
        lambda S, seed: S.Graph(S.Discrete(3), S.Discrete(2), seed=seed),
    ],
)
@pytest.mark.parametrize("seed_kind", ["int", "generator"])
def test_constructor_seed_forms(build: Callable[[Any, Any], Any], seed_kind: str) -> None:
    def make(S: Any) -> Any:
        seed = 3 if seed_kind == "int" else np.random.default_rng(3)
        return build(S, seed)

    ours, theirs = make(ns), make(gs)
    if seed_kind == "generator":
        # A generator is used as the space's own generator, as it is.
        assert type(ours.np_random) is np.random.Generator
        # Subspaces of composite spaces stay unseeded: only the space's own draws are comparable.
        if isinstance(theirs, (gs.Box, gs.Discrete, gs.MultiDiscrete, gs.MultiBinary, gs.Text)):
            for _ in range(3):
                assert_same(ours.sample(), theirs.sample())
        return
    for _ in range(3):
        assert_same(ours.sample(), theirs.sample())


@pytest.mark.parametrize("charset", ["a\x00b", "\x00", "ab\x00\x00c", frozenset("\x00xy")])
@pytest.mark.parametrize("min_length", [0, 2])
def test_text_sample_with_nul_character(charset: Any, min_length: int) -> None:
    # gymnasium's samples lose every "\x00" (numpy's unicode arrays drop trailing NULs).
    ours = ns.Text(6, min_length=min_length, charset=charset, seed=11)
    theirs = gs.Text(6, min_length=min_length, charset=charset, seed=11)
    samples = [ours.sample() for _ in range(20)]
    assert samples == [theirs.sample() for _ in range(20)]
    assert ours.np_random.random() == theirs.np_random.random()


@pytest.mark.parametrize(
    ("name", "seed"),
    [
        ("tuple", [5, 6]),
        ("tuple", (5, 6)),
        ("dict", {"color": 1, "position": 2}),
        ("dict_nested", {"ext": 1, "inner": {"charge": 2, "checks": 3, "job": [4, 5]}}),
        ("dict_nested", {"ext": 1, "inner": 9}),
        ("sequence", (3, 4)),
        ("sequence", [3, 4]),
        ("sequence_stack", (3, 4)),
        ("oneof", (1, 2, 3)),
        ("oneof", [1, 2, 3]),
        ("oneof_three", (1, 2, 3, 4)),
        ("graph", (1, 2, 3)),
        ("graph", [1, 2, 3]),
        ("graph_no_edges", (1, 2)),
        ("tuple_with_sequence", ((1, 2), 3)),
        ("dict_with_graph", {"d": 1, "g": (1, 2, 3)}),
    ],
)
def test_composite_seed_forms_return_and_sample_alike(name: str, seed: Any) -> None:
    ours, theirs = both(CATALOG[name], seed=seed)
    for _ in range(3):
        assert_same(ours.sample(), theirs.sample())


@pytest.mark.parametrize("name", list(CATALOG))
def test_seed_none_returns_same_structure(name: str) -> None:
    ours, theirs = CATALOG[name](ns), CATALOG[name](gs)
    ours_seed, theirs_seed = ours.seed(None), theirs.seed(None)
    assert _structure(ours_seed) == _structure(theirs_seed)


def _structure(seed: Any) -> Any:
    """The container structure of a seed return value, with every int replaced by its type."""
    if isinstance(seed, dict):
        return {k: _structure(v) for k, v in seed.items()}
    if isinstance(seed, (tuple, list)):
        return type(seed), tuple(_structure(v) for v in seed)
    return type(seed)


def test_int_seeding_of_sequence_oneof_graph_reseeds_own_generator() -> None:
    for name in ("sequence", "oneof", "graph", "graph_no_edges"):
        ours, theirs = both(CATALOG[name], seed=11)
        assert ours.np_random.bit_generator.state == theirs.np_random.bit_generator.state


@pytest.mark.parametrize(
    ("name", "seed"),
    [
        ("box", -1),
        ("box", 1.5),
        ("box", np.int64(3)),
        ("box", "3"),
        ("discrete", [1, 2]),
        ("tuple", [1]),
        ("tuple", 1.5),
        ("tuple", {"a": 1}),
        ("dict", {"color": 1}),
        ("dict", [1, 2]),
        ("dict", -3),
        ("sequence", (1, 2, 3)),
        ("sequence", 2.0),
        ("oneof", (1, 2)),
        ("oneof", {"x": 1}),
        ("graph", (1, 2)),
        ("graph_no_edges", (1, 2, 3)),
        ("graph", 0.5),
        ("dict_nested", {"ext": 1, "inner": {"charge": 2}}),
    ],
)
def test_bad_seeds_raise_alike(name: str, seed: Any) -> None:
    assert_same_outcome(lambda S: CATALOG[name](S).seed(seed))


def test_bad_seed_exception_types() -> None:
    with pytest.raises(nb_error.Error, match="Seed must be greater or equal to zero"):
        ns.Discrete(3).seed(-1)
    with pytest.raises(nb_error.Error, match="Seed must be a python integer"):
        ns.Discrete(3).seed(np.int64(1))
    with pytest.raises(ValueError, match="are not identical to space keys"):
        ns.Dict(a=ns.Discrete(2)).seed({"b": 1})
    with pytest.raises(TypeError, match="Expected seed type: list, tuple, int or None"):
        ns.Tuple([ns.Discrete(2)]).seed(1.0)
    with pytest.raises(ValueError, match="Expects the seed to have two elements"):
        ns.Sequence(ns.Discrete(2)).seed((1, 2, 3))
    with pytest.raises(ValueError, match="number of subspaces \\+ 1"):
        ns.OneOf([ns.Discrete(2)]).seed((1, 2, 3))
    with pytest.raises(ValueError, match="three values for Graph, node and edge space"):
        ns.Graph(ns.Discrete(2), ns.Discrete(2)).seed((1, 2))


def test_unseeded_space_seeds_itself_lazily() -> None:
    space = ns.Box(0, 1, shape=(2,))
    assert space._np_random is None
    assert isinstance(space.np_random, np.random.Generator)
    assert space.sample() in space
    empty = ns.Dict()
    assert isinstance(empty.np_random, np.random.Generator)


# ---------------------------------------------------------------------------------------------------
# Masked and probability sampling
# ---------------------------------------------------------------------------------------------------

I8 = np.int8


def _f64(*values: float) -> np.ndarray:
    return np.array(values, dtype=np.float64)


MASKED_CASES: list[tuple[str, Builder, dict[str, Any]]] = [
    ("discrete_mask", lambda S: S.Discrete(5, start=2), {"mask": np.array([0, 1, 0, 1, 1], I8)}),
    ("discrete_mask_none_allowed", lambda S: S.Discrete(3, start=-1), {"mask": np.zeros(3, I8)}),
    ("discrete_mask_int32", lambda S: S.Discrete(4, dtype=np.int32), {"mask": np.array([1, 0, 1, 1], I8)}),
    ("discrete_probability", lambda S: S.Discrete(4), {"probability": _f64(0.1, 0.2, 0.3, 0.4)}),
    ("discrete_probability_one_hot", lambda S: S.Discrete(3, start=5), {"probability": _f64(0, 0, 1)}),
    ("discrete_probability_uint8", lambda S: S.Discrete(3, dtype=np.uint8), {"probability": _f64(0.5, 0, 0.5)}),
    (
        "multidiscrete_mask",
        lambda S: S.MultiDiscrete([3, 2], start=[1, -1]),
        {"mask": (np.array([1, 0, 1], I8), np.array([0, 0], I8))},
    ),
    (
        "multidiscrete_mask_2d",
        lambda S: S.MultiDiscrete(np.array([[2, 3], [3, 2]])),
        {"mask": ((np.array([1, 1], I8), np.array([0, 1, 1], I8)), (np.array([1, 0, 0], I8), np.array([1, 1], I8)))},
    ),
    (
        "multidiscrete_probability",
        lambda S: S.MultiDiscrete([3, 2], dtype=np.int32),
        {"probability": (_f64(0.2, 0, 0.8), _f64(0.5, 0.5))},
    ),
    ("multibinary_mask", lambda S: S.MultiBinary([2, 3]), {"mask": np.array([[0, 1, 2], [2, 2, 1]], I8)}),
    ("multibinary_probability", lambda S: S.MultiBinary(4), {"probability": _f64(0, 0.3, 0.9, 1)}),
    ("text_mask", lambda S: S.Text(5, charset="abcd"), {"mask": (None, np.array([1, 0, 1, 0], I8))}),
    ("text_mask_length", lambda S: S.Text(5, charset="abcd"), {"mask": (3, None)}),
    ("text_mask_np_length", lambda S: S.Text(5, charset="abcd"), {"mask": (np.int64(4), np.array([0, 0, 0, 1], I8))}),
    ("text_mask_all_zero_min0", lambda S: S.Text(5, min_length=0, charset="ab"), {"mask": (None, np.zeros(2, I8))}),
    ("text_probability", lambda S: S.Text(4, charset="xyz"), {"probability": (2, _f64(0.2, 0.3, 0.5))}),
    ("text_probability_no_chars", lambda S: S.Text(4, charset="xyz"), {"probability": (None, None)}),
    (
        "tuple_mask",
        lambda S: S.Tuple((S.Discrete(3), S.MultiBinary(2), S.Box(0, 1))),
        {"mask": (np.array([0, 1, 1], I8), np.array([2, 0], I8), None)},
    ),
    (
        "tuple_probability",
        lambda S: S.Tuple((S.Discrete(2), S.Discrete(3))),
        {"probability": (_f64(0.9, 0.1), None)},
    ),
    (
        "dict_mask",
        lambda S: S.Dict(a=S.Discrete(3), b=S.Discrete(2)),
        {"mask": {"a": np.array([0, 0, 1], I8), "b": None}},
    ),
    (
        "dict_probability",
        lambda S: S.Dict(a=S.Discrete(3), b=S.MultiBinary(2)),
        {"probability": {"a": _f64(0.3, 0.3, 0.4), "b": _f64(0.5, 1)}},
    ),
    ("sequence_mask_int_length", lambda S: S.Sequence(S.Discrete(3)), {"mask": (4, np.array([1, 1, 0], I8))}),
    ("sequence_mask_np_length", lambda S: S.Sequence(S.Discrete(3)), {"mask": (np.int32(2), None)}),
    ("sequence_mask_array_length", lambda S: S.Sequence(S.Discrete(3)), {"mask": (np.array([1, 3, 5]), None)}),
    ("sequence_mask_none_length", lambda S: S.Sequence(S.Discrete(3)), {"mask": (None, np.array([0, 1, 0], I8))}),
    (
        "sequence_probability",
        lambda S: S.Sequence(S.Discrete(2), stack=True),
        {"probability": (3, _f64(0.25, 0.75))},
    ),
    (
        "oneof_mask",
        lambda S: S.OneOf((S.Discrete(3), S.MultiBinary(2))),
        {"mask": (np.array([0, 1, 0], I8), np.array([1, 2], I8))},
    ),
    (
        "oneof_probability",
        lambda S: S.OneOf((S.Discrete(2), S.Discrete(3))),
        {"probability": (_f64(1, 0), _f64(0, 0.5, 0.5))},
    ),
    (
        "graph_mask",
        lambda S: S.Graph(S.Discrete(3), S.Discrete(4)),
        # The node mask is one mask per node (10 by default); the edge mask is repeated for every edge.
        {"mask": ((np.array([0, 1, 1], I8),) * 10, np.array([1, 0, 0, 1], I8))},
    ),
    (
        "graph_probability",
        lambda S: S.Graph(S.Discrete(2), S.Discrete(2)),
        {"probability": ((_f64(0.5, 0.5),) * 10, _f64(0.1, 0.9))},
    ),
]


@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize(("builder", "kwargs"), [c[1:] for c in MASKED_CASES], ids=[c[0] for c in MASKED_CASES])
def test_masked_sampling_is_bit_identical(builder: Builder, kwargs: dict[str, Any], seed: int) -> None:
    ours, theirs = both(builder, seed=seed)
    for _ in range(4):
        assert_same(ours.sample(**kwargs), theirs.sample(**kwargs))


@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"num_nodes": 1},
        {"num_nodes": 4, "num_edges": 0},
        {"num_nodes": 3, "num_edges": 5},
        {"num_nodes": 2, "mask": (None, None)},
    ],
)
@pytest.mark.parametrize("name", ["graph", "graph_no_edges", "graph_box_edges"])
def test_graph_sample_arguments(name: str, kwargs: dict[str, Any], seed: int) -> None:
    ours, theirs = both(CATALOG[name], seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # num_edges with no edge space warns (compared below)
        for _ in range(3):
            assert_same(ours.sample(**kwargs), theirs.sample(**kwargs))


def test_graph_num_edges_without_edge_space_warns() -> None:
    with pytest.warns(UserWarning, match=re.escape("The number of edges is set (3) but the edge space is None.")):
        ns.Graph(ns.Discrete(2), None, seed=1).sample(num_nodes=3, num_edges=3)


BAD_SAMPLE_CASES: list[tuple[str, Builder, dict[str, Any], type[Exception], str]] = [
    ("box_mask", lambda S: S.Box(0, 1), {"mask": np.ones(1, I8)}, gym_error.Error, "cannot be provided a mask"),
    (
        "box_probability",
        lambda S: S.Box(0, 1),
        {"probability": _f64(1)},
        gym_error.Error,
        "cannot be provided a probability mask",
    ),
    (
        "discrete_both",
        lambda S: S.Discrete(2),
        {"mask": np.ones(2, I8), "probability": _f64(0.5, 0.5)},
        ValueError,
        "Only one of `mask` or `probability` can be provided",
    ),
    (
        "discrete_mask_list",
        lambda S: S.Discrete(2),
        {"mask": [1, 0]},
        AssertionError,
        "expected type of the sample mask",
    ),
    (
        "discrete_mask_dtype",
        lambda S: S.Discrete(2),
        {"mask": np.ones(2)},
        AssertionError,
        "dtype of the sample mask is np.int8",
    ),
    (
        "discrete_mask_shape",
        lambda S: S.Discrete(2),
        {"mask": np.ones(3, I8)},
        AssertionError,
        "shape of the sample mask is \\(2,\\)",
    ),
    (
        "discrete_mask_values",
        lambda S: S.Discrete(2),
        {"mask": np.array([2, 0], I8)},
        AssertionError,
        "should be 0 or 1",
    ),
    (
        "discrete_prob_type",
        lambda S: S.Discrete(2),
        {"probability": [0.5, 0.5]},
        AssertionError,
        "type of the sample probability",
    ),
    (
        "discrete_prob_dtype",
        lambda S: S.Discrete(2),
        {"probability": np.ones(2, np.float32) / 2},
        AssertionError,
        "np.float64",
    ),
    (
        "discrete_prob_shape",
        lambda S: S.Discrete(2),
        {"probability": _f64(1)},
        AssertionError,
        "shape of the sample probability",
    ),
    (
        "discrete_prob_range",
        lambda S: S.Discrete(2),
        {"probability": _f64(1.5, -0.5)},
        AssertionError,
        "between 0 and 1",
    ),
    (
        "discrete_prob_sum",
        lambda S: S.Discrete(2),
        {"probability": _f64(0.2, 0.2)},
        AssertionError,
        "should be equal to 1",
    ),
    (
        "multidiscrete_both",
        lambda S: S.MultiDiscrete([2]),
        {"mask": (np.ones(2, I8),), "probability": (_f64(0.5, 0.5),)},
        ValueError,
        "Only one of",
    ),
    (
        "multidiscrete_mask_list",
        lambda S: S.MultiDiscrete([2]),
        {"mask": [np.ones(2, I8)]},
        AssertionError,
        "to be a tuple",
    ),
    (
        "multidiscrete_mask_len",
        lambda S: S.MultiDiscrete([2, 2]),
        {"mask": (np.ones(2, I8),)},
        AssertionError,
        "mask length",
    ),
    (
        "multidiscrete_sub_type",
        lambda S: S.MultiDiscrete([2]),
        {"mask": ([1, 1],)},
        AssertionError,
        "sub mask to be np.ndarray",
    ),
    (
        "multidiscrete_sub_len",
        lambda S: S.MultiDiscrete([2]),
        {"mask": (np.ones(3, I8),)},
        AssertionError,
        "number of actions",
    ),
    (
        "multidiscrete_sub_dtype",
        lambda S: S.MultiDiscrete([2]),
        {"mask": (np.ones(2),)},
        AssertionError,
        "mask dtype to be np.int8",
    ),
    (
        "multidiscrete_sub_values",
        lambda S: S.MultiDiscrete([2]),
        {"mask": (np.array([3, 0], I8),)},
        AssertionError,
        "0 or 1",
    ),
    (
        "multidiscrete_prob_dtype",
        lambda S: S.MultiDiscrete([2]),
        {"probability": (np.ones(2, I8),)},
        AssertionError,
        "np.float64",
    ),
    (
        "multidiscrete_prob_range",
        lambda S: S.MultiDiscrete([2]),
        {"probability": (_f64(2, -1),)},
        AssertionError,
        "between 0 and 1",
    ),
    (
        "multidiscrete_prob_sum",
        lambda S: S.MultiDiscrete([2]),
        {"probability": (_f64(0.1, 0.1),)},
        AssertionError,
        "sum of all mask",
    ),
    (
        "multibinary_mask_type",
        lambda S: S.MultiBinary(2),
        {"mask": [1, 1]},
        AssertionError,
        "type of the mask is np.ndarray",
    ),
    (
        "multibinary_mask_dtype",
        lambda S: S.MultiBinary(2),
        {"mask": np.ones(2)},
        AssertionError,
        "dtype of the mask is np.int8",
    ),
    (
        "multibinary_mask_shape",
        lambda S: S.MultiBinary(2),
        {"mask": np.ones(3, I8)},
        AssertionError,
        "shape of the mask",
    ),
    (
        "multibinary_mask_values",
        lambda S: S.MultiBinary(2),
        {"mask": np.array([3, 1], I8)},
        AssertionError,
        "0, 1 or 2",
    ),
    (
        "multibinary_prob_dtype",
        lambda S: S.MultiBinary(2),
        {"probability": np.ones(2, I8)},
        AssertionError,
        "np.float64",
    ),
    (
        "multibinary_prob_shape",
        lambda S: S.MultiBinary(2),
        {"probability": _f64(1)},
        AssertionError,
        "shape of the probability",
    ),
    (
        "multibinary_prob_range",
        lambda S: S.MultiBinary(2),
        {"probability": _f64(1, 2)},
        AssertionError,
        "between 0 and 1",
    ),
    ("text_mask_type", lambda S: S.Text(3), {"mask": [None, None]}, AssertionError, "type to be a tuple"),
    ("text_mask_len", lambda S: S.Text(3), {"mask": (None,)}, AssertionError, "length to be two"),
    ("text_length_type", lambda S: S.Text(3), {"mask": (2.0, None)}, AssertionError, "length to be an integer"),
    ("text_length_range", lambda S: S.Text(3), {"mask": (4, None)}, AssertionError, "be between 1 and 3"),
    (
        "text_charmask_type",
        lambda S: S.Text(3, charset="ab"),
        {"mask": (None, [1, 1])},
        AssertionError,
        "to be an np.ndarray",
    ),
    (
        "text_charmask_dtype",
        lambda S: S.Text(3, charset="ab"),
        {"mask": (None, np.ones(2))},
        AssertionError,
        "to be type",
    ),
    (
        "text_charmask_shape",
        lambda S: S.Text(3, charset="ab"),
        {"mask": (None, np.ones(3, I8))},
        AssertionError,
        "to be \\(2,\\)",
    ),
    (
        "text_charmask_values",
        lambda S: S.Text(3, charset="ab"),
        {"mask": (None, np.array([2, 1], I8))},
        AssertionError,
        "0 or 1",
    ),
    (
        "text_all_zero_min1",
        lambda S: S.Text(3, charset="ab"),
        {"mask": (None, np.zeros(2, I8))},
        ValueError,
        "character mask is all zero",
    ),
    (
        "text_prob_range",
        lambda S: S.Text(3, charset="ab"),
        {"probability": (None, _f64(2, -1))},
        AssertionError,
        "within 0 and 1",
    ),
    (
        "text_prob_sum",
        lambda S: S.Text(3, charset="ab"),
        {"probability": (None, _f64(0.2, 0.2))},
        AssertionError,
        "to be 1",
    ),
    ("tuple_mask_type", lambda S: S.Tuple([S.Discrete(2)]), {"mask": [None]}, AssertionError, "`mask` to be tuple"),
    (
        "tuple_mask_len",
        lambda S: S.Tuple([S.Discrete(2)]),
        {"mask": (None, None)},
        AssertionError,
        "length of `mask` to be 1",
    ),
    (
        "tuple_prob_type",
        lambda S: S.Tuple([S.Discrete(2)]),
        {"probability": [None]},
        AssertionError,
        "`probability` to be tuple",
    ),
    (
        "tuple_both",
        lambda S: S.Tuple([S.Discrete(2)]),
        {"mask": (None,), "probability": (None,)},
        ValueError,
        "Only one of",
    ),
    ("dict_mask_type", lambda S: S.Dict(a=S.Discrete(2)), {"mask": [None]}, AssertionError, "mask to be a dict"),
    ("dict_mask_keys", lambda S: S.Dict(a=S.Discrete(2)), {"mask": {"b": None}}, AssertionError, "same as space keys"),
    (
        "dict_prob_type",
        lambda S: S.Dict(a=S.Discrete(2)),
        {"probability": 1},
        AssertionError,
        "probability mask to be a dict",
    ),
    ("dict_prob_keys", lambda S: S.Dict(a=S.Discrete(2)), {"probability": {}}, AssertionError, "same as space keys"),
    (
        "sequence_both",
        lambda S: S.Sequence(S.Discrete(2)),
        {"mask": (1, None), "probability": (1, None)},
        ValueError,
        "Only one of",
    ),
    (
        "sequence_neg_length",
        lambda S: S.Sequence(S.Discrete(2)),
        {"mask": (-1, None)},
        AssertionError,
        "greater than or equal to zero",
    ),
    (
        "sequence_2d_length",
        lambda S: S.Sequence(S.Discrete(2)),
        {"mask": (np.ones((2, 2), int), None)},
        AssertionError,
        "1-dimensional",
    ),
    (
        "sequence_neg_lengths",
        lambda S: S.Sequence(S.Discrete(2)),
        {"mask": (np.array([1, -1]), None)},
        AssertionError,
        "all values",
    ),
    (
        "sequence_float_lengths",
        lambda S: S.Sequence(S.Discrete(2)),
        {"mask": (np.array([1.0]), None)},
        AssertionError,
        "dtype of np.integer",
    ),
    (
        "sequence_length_type",
        lambda S: S.Sequence(S.Discrete(2)),
        {"probability": (1.5, None)},
        TypeError,
        "integer or a np.ndarray",
    ),
    (
        "oneof_both",
        lambda S: S.OneOf([S.Discrete(2)]),
        {"mask": (None,), "probability": (None,)},
        ValueError,
        "Only one of",
    ),
    ("oneof_mask_type", lambda S: S.OneOf([S.Discrete(2)]), {"mask": [None]}, AssertionError, "`mask` is tuple"),
    (
        "oneof_prob_len",
        lambda S: S.OneOf([S.Discrete(2)]),
        {"probability": ()},
        AssertionError,
        "length of `probability` is 1",
    ),
    ("graph_nodes", lambda S: S.Graph(S.Discrete(2), None), {"num_nodes": 0}, AssertionError, "number of nodes"),
    (
        "graph_edges",
        lambda S: S.Graph(S.Discrete(2), S.Discrete(2)),
        {"num_edges": -1},
        AssertionError,
        "number of edges",
    ),
    (
        "graph_both",
        lambda S: S.Graph(S.Discrete(2), None),
        {"mask": (None, None), "probability": (None, None)},
        ValueError,
        "Only one",
    ),
]


@pytest.mark.parametrize(
    ("builder", "kwargs", "exc_type", "phrase"),
    [c[1:] for c in BAD_SAMPLE_CASES],
    ids=[c[0] for c in BAD_SAMPLE_CASES],
)
def test_bad_sample_arguments_raise_alike(
    builder: Builder, kwargs: dict[str, Any], exc_type: type[Exception], phrase: str
) -> None:
    ours_type = nb_error.Error if exc_type is gym_error.Error else exc_type
    with pytest.raises(exc_type, match=phrase):
        _seeded(builder, gs).sample(**kwargs)
    with pytest.raises(ours_type, match=phrase):
        _seeded(builder, ns).sample(**kwargs)
    assert_same_outcome(lambda S: _seeded(builder, S).sample(**kwargs))


def _seeded(builder: Builder, S: Any) -> Any:
    space = builder(S)
    space.seed(0)
    return space


# ---------------------------------------------------------------------------------------------------
# Constructors
# ---------------------------------------------------------------------------------------------------

BAD_CONSTRUCTORS: list[tuple[str, Builder, type[Exception], str]] = [
    ("box_dtype_none", lambda S: S.Box(0, 1, dtype=None), ValueError, "dtype must be explicitly provided"),
    ("box_dtype_object", lambda S: S.Box(0, 1, dtype=object), ValueError, "Invalid Box dtype"),
    ("box_dtype_str", lambda S: S.Box(0, 1, dtype=np.str_), ValueError, "Invalid Box dtype"),
    ("box_shape_not_iterable", lambda S: S.Box(0, 1, shape=3), TypeError, "shape to be an iterable"),
    ("box_shape_float", lambda S: S.Box(0, 1, shape=(2.0,)), TypeError, "shape elements to be integer"),
    (
        "box_shape_mismatch",
        lambda S: S.Box(np.zeros(2), np.ones(3)),
        ValueError,
        "low.shape and high.shape don't match",
    ),
    ("box_shape_unknown", lambda S: S.Box([0, 0], [1, 1]), ValueError, "Box shape is not specified"),
    ("box_shape_bool", lambda S: S.Box(True, 1), ValueError, "Box shape is not specified"),
    ("box_low_gt_high", lambda S: S.Box(1, 0, shape=(2,)), ValueError, "low values must be less than or equal to high"),
    (
        "box_low_gt_high_arrays",
        lambda S: S.Box(np.array([0, 2.0]), np.array([1, 1.0])),
        ValueError,
        "less than or equal",
    ),
    (
        "box_low_shape",
        lambda S: S.Box(np.zeros(3), 1, shape=(2,)),
        ValueError,
        "low.shape doesn't match provided shape",
    ),
    (
        "box_high_shape",
        lambda S: S.Box(0, np.ones(3), shape=(2,)),
        ValueError,
        "high.shape doesn't match provided shape",
    ),
    ("box_low_nan", lambda S: S.Box(np.nan, 1, shape=(2,)), ValueError, "No low value can be equal to `np.nan`"),
    ("box_high_nan", lambda S: S.Box(0, np.array([1, np.nan])), ValueError, "No high value can be equal to `np.nan`"),
    ("box_low_nan_array", lambda S: S.Box(np.array([np.nan]), 1), ValueError, "No low value"),
    ("box_high_nan_scalar", lambda S: S.Box(0, np.nan, shape=(1,)), ValueError, "No high value"),
    (
        "box_uint_neginf",
        lambda S: S.Box(-np.inf, 1, shape=(2,), dtype=np.uint8),
        ValueError,
        "unsigned int dtype don't support",
    ),
    (
        "box_uint_posinf",
        lambda S: S.Box(0, np.inf, shape=(2,), dtype=np.uint8),
        ValueError,
        "unsigned int dtype don't support",
    ),
    (
        "box_bool_inf_array",
        lambda S: S.Box(np.array([0.0]), np.array([np.inf]), dtype=bool),
        ValueError,
        "don't support",
    ),
    (
        "box_uint_neginf_array",
        lambda S: S.Box(np.array([-np.inf]), np.array([1.0]), dtype=np.uint8),
        ValueError,
        "don't support",
    ),
    (
        "box_low_out_of_range",
        lambda S: S.Box(-1, 1, shape=(2,), dtype=np.uint8),
        ValueError,
        "low is out of bounds of the dtype",
    ),
    (
        "box_high_out_of_range",
        lambda S: S.Box(0, 300, shape=(2,), dtype=np.uint8),
        ValueError,
        "high is out of bounds of the dtype",
    ),
    (
        "box_low_array_out_of_range",
        lambda S: S.Box(np.array([-200, 0]), np.array([1, 1]), dtype=np.int8),
        ValueError,
        "low is out of bounds",
    ),
    (
        "box_high_array_out_of_range",
        lambda S: S.Box(np.array([0, 0]), np.array([1, 1e40]), dtype=np.float32),
        ValueError,
        "high is out of bounds",
    ),
    ("box_low_list", lambda S: S.Box([0.0], np.ones(1)), ValueError, "low must be a np.ndarray, integer, or float"),
    ("box_high_list", lambda S: S.Box(np.zeros(1), [1.0]), ValueError, "high must be a np.ndarray, integer, or float"),
    (
        "box_low_str_array",
        lambda S: S.Box(np.array(["a"]), np.ones(1)),
        ValueError,
        "low must be a floating, integer, or bool",
    ),
    (
        "box_high_str_array",
        lambda S: S.Box(np.zeros(1), np.array(["a"])),
        ValueError,
        "high must be a floating or integer",
    ),
    ("discrete_float_n", lambda S: S.Discrete(2.0), TypeError, "Expects `n` to be an integer"),
    ("discrete_zero_n", lambda S: S.Discrete(0), ValueError, "n \\(counts\\) have to be positive"),
    ("discrete_negative_n", lambda S: S.Discrete(-3), ValueError, "have to be positive"),
    ("discrete_float_start", lambda S: S.Discrete(2, start=0.5), TypeError, "Expects `start` to be an integer"),
    ("discrete_dtype_none", lambda S: S.Discrete(2, dtype=None), TypeError, "Invalid Discrete dtype, cannot be None"),
    ("discrete_dtype_float", lambda S: S.Discrete(2, dtype=np.float32), TypeError, "must be an integer dtype"),
    (
        "multidiscrete_dtype_none",
        lambda S: S.MultiDiscrete([2], dtype=None),
        ValueError,
        "dtype must be explicitly provided",
    ),
    (
        "multidiscrete_dtype_float",
        lambda S: S.MultiDiscrete([2], dtype=np.float64),
        ValueError,
        "must be an integer dtype",
    ),
    ("multidiscrete_zero", lambda S: S.MultiDiscrete([2, 0]), ValueError, "nvec \\(counts\\) have to be positive"),
    (
        "multidiscrete_start_shape",
        lambda S: S.MultiDiscrete([2, 3], start=[0]),
        ValueError,
        "should have the same shape",
    ),
    ("multibinary_zero", lambda S: S.MultiBinary(0), ValueError, "n \\(counts\\) have to be positive"),
    ("multibinary_negative_dim", lambda S: S.MultiBinary([2, -1]), ValueError, "have to be positive"),
    ("multibinary_float", lambda S: S.MultiBinary(2.0), ValueError, "Expected n to be an int or a sequence of ints"),
    ("text_float_max", lambda S: S.Text(2.0), TypeError, "max_length to be an integer"),
    ("text_float_min", lambda S: S.Text(2, min_length=1.0), TypeError, "min_length to be an integer"),
    ("text_negative_min", lambda S: S.Text(2, min_length=-1), ValueError, "must be non-negative"),
    ("text_min_gt_max", lambda S: S.Text(2, min_length=3), ValueError, "less than or equal to the max_length"),
    ("text_multichar", lambda S: S.Text(2, charset=["ab", "c"]), ValueError, "single character"),
    ("tuple_not_space", lambda S: S.Tuple([S.Discrete(2), 3]), TypeError, "does not inherit from `gymnasium.Space`"),
    ("dict_not_space", lambda S: S.Dict(a=3), TypeError, "Dict space element is not an instance of Space"),
    ("dict_bad_input", lambda S: S.Dict(3), TypeError, "Unexpected Dict space input"),
    ("dict_duplicate_kwarg", lambda S: S.Dict({"a": S.Discrete(2)}, a=S.Discrete(3)), ValueError, "already exists"),
    ("sequence_not_space", lambda S: S.Sequence(3), TypeError, "feature space to be instance of a gym Space"),
    ("oneof_not_iterable", lambda S: S.OneOf(3), TypeError, "is not an iterable"),
    ("oneof_empty", lambda S: S.OneOf([]), ValueError, "Empty `OneOf` spaces are not supported"),
    ("oneof_not_space", lambda S: S.OneOf([S.Discrete(2), "x"]), TypeError, "does not inherit from"),
]


@pytest.mark.parametrize(
    ("builder", "exc_type", "phrase"), [c[1:] for c in BAD_CONSTRUCTORS], ids=[c[0] for c in BAD_CONSTRUCTORS]
)
def test_bad_constructor_arguments_raise_alike(builder: Builder, exc_type: type[Exception], phrase: str) -> None:
    with pytest.raises(exc_type, match=phrase):
        builder(gs)
    with pytest.raises(exc_type, match=phrase):
        builder(ns)
    assert_same_outcome(builder)


def test_box_does_not_modify_callers_bounds() -> None:
    low, high = np.array([-np.inf, 0.0]), np.array([1.0, np.inf])
    space = ns.Box(low, high, dtype=np.int32)
    assert np.isneginf(low[0]) and np.isposinf(high[1])
    theirs = gs.Box(low.copy(), high.copy(), dtype=np.int32)
    assert_same(space.low, theirs.low)
    assert_same(space.high, theirs.high)
    assert_same(space.bounded_below, theirs.bounded_below)
    assert_same(space.bounded_above, theirs.bounded_above)


@pytest.mark.parametrize(
    ("builder", "n_warnings"),
    [
        (lambda S: S.Box(np.zeros(2), np.ones(2), dtype=np.float32), 2),
        (lambda S: S.Box(np.zeros(2, np.float16), np.ones(2), dtype=np.float16), 1),
        (lambda S: S.Box(0, 1, shape=(2,), dtype=np.float32), 0),
    ],
)
def test_box_precision_warning(builder: Builder, n_warnings: int) -> None:
    def warnings_of(S: Any) -> list[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            builder(S)
        return [str(w.message) for w in caught]

    ours = warnings_of(ns)
    assert ours == warnings_of(gs)
    assert len(ours) == n_warnings


@pytest.mark.parametrize("name", list(FUNDAMENTAL))
def test_box_attributes(name: str) -> None:
    ours, theirs = both(FUNDAMENTAL[name])
    assert ours.shape == theirs.shape and type(ours.shape) is type(theirs.shape)
    assert ours.dtype == theirs.dtype
    assert ours.is_np_flattenable == theirs.is_np_flattenable
    for attribute in ("low", "high", "bounded_below", "bounded_above", "n", "start", "nvec"):
        if hasattr(theirs, attribute):
            assert_same(getattr(ours, attribute), getattr(theirs, attribute), attribute)
    if isinstance(theirs, gs.Box):
        for manner in ("both", "below", "above"):
            assert ours.is_bounded(manner) is theirs.is_bounded(manner)
        assert ours.low_repr is None and ours.high_repr is None
        repr(ours), repr(theirs)
        assert (ours.low_repr, ours.high_repr) == (theirs.low_repr, theirs.high_repr)
    if isinstance(theirs, gs.Text):
        assert ours.character_list == theirs.character_list
        assert ours.character_set == theirs.character_set
        assert ours.characters == theirs.characters
        for char in theirs.character_list:
            assert_same(ours.character_index(char), theirs.character_index(char))


def test_box_is_bounded_bad_manner() -> None:
    assert_same_outcome(lambda S: S.Box(0, 1).is_bounded("sideways"))
    with pytest.raises(ValueError, match="manner is not in"):
        ns.Box(0, 1).is_bounded("sideways")  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["box", "box_int64", "box_uint8_image", "box_bool", "box_arrays"])
def test_box_samples_follow_in_place_changes_of_bounds(name: str) -> None:
    ours, theirs = both(FUNDAMENTAL[name], seed=4)
    assert_same(ours.sample(), theirs.sample())
    for space in (ours, theirs):
        space.low.flat[0] = space.high.flat[0]
    for _ in range(2):
        assert_same(ours.sample(), theirs.sample())
    for space in (ours, theirs):
        space.high = space.high.copy()
        space.high.flat[-1] = space.low.flat[-1]
    assert_same(ours.sample(), theirs.sample())


@pytest.mark.parametrize("name", ["box", "box_int64", "box_arrays"])
def test_box_samples_follow_changes_of_the_bounded_flags(name: str) -> None:
    """gymnasium reads ``bounded_below`` / ``bounded_above`` at every draw: a Box bounded when made, whose flags are
    then changed in place or replaced, draws exponentials and normals as gymnasium's does."""
    ours, theirs = both(FUNDAMENTAL[name], seed=4)
    assert_same(ours.sample(), theirs.sample())
    for space in (ours, theirs):
        space.bounded_above.flat[-1] = False
    for _ in range(2):
        assert_same(ours.sample(), theirs.sample())
    for space in (ours, theirs):
        space.bounded_below = np.zeros_like(space.bounded_below)
    assert_same(ours.sample(), theirs.sample())
    for space in (ours, theirs):
        space.bounded_below, space.bounded_above = np.ones_like(space.bounded_below), np.ones_like(space.bounded_above)
    assert_same(ours.sample(), theirs.sample())


def test_box_sample_overflowing_range_raises_alike() -> None:
    huge = lambda S: S.Box(-1e308, 1e308, shape=(2,), dtype=np.float64)  # noqa: E731
    assert_same_outcome(lambda S: huge(S).sample())
    with pytest.raises(OverflowError, match="Range exceeds valid bounds"):
        with np.errstate(over="ignore"):
            huge(ns).sample()


def test_box_int_infinite_bounds_become_dtype_limits() -> None:
    for dtype in (np.int8, np.int32, np.int64):
        ours, theirs = both(lambda S, d=dtype: S.Box(-np.inf, np.inf, shape=(2,), dtype=d))
        assert_same(ours.low, theirs.low)
        assert_same(ours.high, theirs.high)
        assert not ours.is_bounded()


def test_shapes_and_integer_dims() -> None:
    ours, theirs = both(lambda S: S.Box(0, 1, shape=(np.int64(2), 3)))
    assert ours.shape == theirs.shape == (2, 3)
    assert all(type(d) is int for d in ours.shape)
    assert ns.Dict().shape is None and ns.Dict().dtype is None
    assert ns.Text(3).dtype == np.dtype(str)


def test_text_charset_ordering() -> None:
    assert ns.Text(3, charset="cabca").character_list == gs.Text(3, charset="cabca").character_list
    assert ns.Text(3, charset={"c", "a", "b"}).character_list == ("a", "b", "c")
    assert repr(ns.Text(3, charset="cab")) == repr(gs.Text(3, charset="cab")) == "Text(1, 3, charset=abc)"


def test_multidiscrete_getitem_and_len() -> None:
    for builder in (CATALOG["multidiscrete"], CATALOG["multidiscrete_2d"], CATALOG["multidiscrete_start"]):
        ours, theirs = both(builder, seed=5)
        for index in (0, -1, slice(0, 2)):
            ours_sub, theirs_sub = ours[index], theirs[index]
            assert repr(ours_sub) == repr(theirs_sub)
            assert ours_sub == ours_sub and type(ours_sub).__name__ == type(theirs_sub).__name__
            # The subspace continues from the parent's generator state.
            for _ in range(3):
                assert_same(ours_sub.sample(), theirs_sub.sample())
        if ours.nvec.ndim == 1:
            assert len(ours) == len(theirs)
    with pytest.warns(UserWarning, match="length of a multi-dimensional MultiDiscrete"):
        assert len(ns.MultiDiscrete(np.ones((2, 3), int))) == 2


def test_dict_mapping_interface() -> None:
    ours, theirs = both(COMPOSITE["dict_nested"])
    assert list(ours.keys()) == list(theirs.keys())
    assert [repr(v) for v in ours.values()] == [repr(v) for v in theirs.values()]
    assert [k for k, _ in ours.items()] == [k for k, _ in theirs.items()]
    assert list(iter(ours)) == list(iter(theirs)) and len(ours) == len(theirs)
    assert "ext" in ours.spaces and ours["ext"] == ns.MultiDiscrete([5, 2, 2])
    ours["extra"] = ns.Discrete(2)
    assert list(ours.keys())[-1] == "extra"
    with pytest.raises(TypeError, match="value that is not a gymnasium space"):
        ours["bad"] = 3  # type: ignore[assignment]
    # Keys of different types cannot be sorted: insertion order is kept.
    mixed = lambda S: S.Dict({2: S.Discrete(2), "a": S.Discrete(3)})  # noqa: E731
    assert list(mixed(ns).keys()) == list(mixed(gs).keys()) == [2, "a"]
    ordered = lambda S: S.Dict([("z", S.Discrete(2)), ("a", S.Discrete(3))])  # noqa: E731
    assert list(ordered(ns).keys()) == list(ordered(gs).keys()) == ["z", "a"]
    from collections import OrderedDict

    od = lambda S: S.Dict(OrderedDict([("z", S.Discrete(2)), ("a", S.Discrete(3))]))  # noqa: E731
    assert list(od(ns).keys()) == ["z", "a"]


def test_tuple_and_oneof_sequence_interface() -> None:
    ours, theirs = both(COMPOSITE["oneof_three"])
    assert len(ours) == len(theirs) == 3
    assert repr(ours[1]) == repr(theirs[1])
    tup = ns.Tuple((ns.Discrete(2), ns.Discrete(3), ns.Box(0, 1)))
    assert tup[1:] == (ns.Discrete(3), ns.Box(0, 1))
    assert list(tup) == list(tup.spaces)
    assert tup.index(ns.Discrete(3)) == 1


# ---------------------------------------------------------------------------------------------------
# contains
# ---------------------------------------------------------------------------------------------------

CONTAINS_CASES: dict[str, list[Any]] = {
    "box": [
        np.zeros(3, np.float32),
        np.ones(3, np.float32),
        np.full(3, 1.5, np.float32),
        np.zeros(3, np.float64),
        np.zeros(3, np.int64),
        np.zeros(3, np.int8),
        np.zeros(4, np.float32),
        np.zeros((3, 1), np.float32),
        [0.0, 0.5, -1.0],
        (0, 0, 0),
        [0.0, 2.0, 0.0],
        "abc",
        None,
        [1, 2],
        0.5,
    ],
    "box_scalar_shape": [np.float32(0.5), np.array(0.5, np.float32), 0.5, 2.0, np.array([0.5], np.float32)],
    "box_int8": [
        np.zeros(5, np.int8),
        np.zeros(5, np.int16),
        np.zeros(5, np.uint8),
        [1, 2, 3, 4, 5],
        [300, 0, 0, 0, 0],
    ],
    "box_uint8_image": [np.zeros((2, 2, 3), np.uint8), np.zeros((2, 2, 3), np.int64), np.zeros((2, 2, 3), bool)],
    "box_bool": [np.ones(4, bool), np.ones(4, np.uint8), [True, False, True, True]],
    "box_mixed_bounds": [np.array([0, -1e9, 1e9, 0, 3], np.float32), np.array([0, 3, 0, 0, 3], np.float32)],
    "box_int64_wide": [np.array([0, 2**62, -(2**62)]), np.array([0, 2**62 + 1, 0])],
    "discrete": [
        0,
        4,
        5,
        -1,
        np.int64(3),
        np.int32(3),
        np.int8(2),
        np.uint64(1),
        np.array(2),
        np.array([2]),
        2.0,
        np.float64(2),
        True,
        "1",
        None,
        2**70,
        np.array(2, np.int16),
    ],
    "discrete_start": [-1, 1, 2, -2, np.int64(-1)],
    "discrete_int32": [np.int64(3), np.int32(3), np.int16(3), 2**40],
    "discrete_uint8_start": [2, 5, 6, 1, np.uint8(3), np.int8(3), -1, 300],
    "multidiscrete": [
        np.array([0, 3, 4]),
        np.array([2, 3, 4]),
        np.array([3, 0, 0]),
        np.array([0, 0, -1]),
        [1, 1, 1],
        (1, 1, 1),
        np.array([0, 0, 0], np.int8),
        np.array([0.0, 0, 0]),
        np.array([0, 0]),
        "abc",
        3,
    ],
    "multidiscrete_start": [np.array([-1, 5]), np.array([1, 8]), np.array([2, 8]), np.array([-2, 5]), [0, 6]],
    "multidiscrete_int8": [np.array([1, 2], np.int8), np.array([1, 2]), np.array([1, 3], np.int8)],
    "multibinary": [
        np.array([0, 1, 0, 1, 1], np.int8),
        np.ones(5),
        [1, 0, 1, 0, 0],
        [1, 0, 2, 0, 0],
        np.ones(4),
        1,
        np.ones(5, bool),
        (0, 1, 1, 1, 1),
    ],
    "multibinary_2d": [np.zeros((2, 3), np.int8), np.zeros(6, np.int8), [[0, 1, 0], [1, 1, 1]]],
    "text": ["abc", "", "abcdef", "ab_c", "A9", 5, None, ["a"]],
    "text_abc_min0": ["", "abca", "abcab", "d"],
    "text_set": ["z0", "x", "xyz01", "xyz011"],
    "tuple": [
        (0, np.zeros(2, np.float32)),
        [1, np.zeros(2, np.float32)],
        (2, np.zeros(2, np.float32)),
        (0,),
        (0, np.zeros(2, np.float32), 1),
        {"a": 1},
        np.array([0, 1]),
    ],
    "tuple_empty": [(), [], (1,)],
    "dict": [
        {"color": 0, "position": np.zeros(2, np.float32)},
        {"color": 3, "position": np.zeros(2, np.float32)},
        {"color": 0},
        {"color": 0, "position": np.zeros(2, np.float32), "x": 1},
        [0, 1],
        None,
    ],
    "dict_with_text": [{"name": "ab", "n": 1}, {"name": "abc", "n": 1}, {"name": "abab", "n": 1}],
    "sequence": [
        (),
        (np.zeros(1, np.float32),),
        (np.zeros(1, np.float32), np.full(1, 2, np.float32)),
        [np.zeros(1, np.float32)],
        np.zeros((2, 1), np.float32),
    ],
    "sequence_discrete": [(0, 1, 2), (0, 3), (), [0]],
    "sequence_stack": [np.zeros((3, 2), np.float32), np.zeros((0, 2), np.float32), np.full((1, 2), 3, np.float32)],
    "oneof": [
        (0, 1),
        (1, np.zeros(2, np.float32)),
        (np.int64(0), 0),
        (2, 0),
        (-1, 0),
        (0, 5),
        (0,),
        [0, 1],
        (np.int32(0), 1),
        (True, np.zeros(2, np.float32)),
        (1.0, 0),
    ],
    "oneof_three": [(0, np.array([0, 1, 1], np.int8)), (1, 0), (1, 1), (2, "xy"), (2, "z")],
}


def _graph_contains_cases(S: Any) -> list[Any]:
    GI = S.GraphInstance
    nodes = np.zeros((3, 3), np.float32)
    edges = np.array([0, 2])
    links = np.array([[0, 1], [2, 2]], np.int32)
    return [
        GI(nodes, edges, links),
        GI(nodes, None, None),
        GI(nodes, edges, None),
        GI(nodes, None, links),
        GI(np.full((3, 3), 200, np.float32), None, None),
        GI(nodes, np.array([0, 3]), links),
        GI(nodes, edges, np.array([[0, 1], [2, 3]])),
        GI(nodes, edges, np.array([[0, 1.0], [2, 2]])),
        GI(nodes, edges, np.array([[0, 1]])),
        GI(nodes, edges, [[0, 1], [2, 2]]),
        GI(None, None, None),
        (nodes, None, None),
    ]


@pytest.mark.parametrize("name", list(CONTAINS_CASES))
def test_contains_agrees(name: str) -> None:
    ours, theirs = both(CATALOG[name], seed=0)
    results = []
    for value in CONTAINS_CASES[name]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = theirs.contains(value)
            got = ours.contains(value)
            assert (value in ours) is got
        assert type(got) is bool
        assert got == expected, f"{name}: contains({value!r}) is {got}, gymnasium says {expected}"
        results.append(got)
    # Both outcomes occur, so the cases exercise the check.
    assert True in results and False in results


@pytest.mark.parametrize("name", ["graph", "graph_no_edges"])
def test_graph_contains_agrees(name: str) -> None:
    ours, theirs = both(CATALOG[name], seed=0)
    if name == "graph_no_edges":
        ours, theirs = ns.Graph(ns.Box(-100, 100, shape=(3,)), None), gs.Graph(gs.Box(-100, 100, shape=(3,)), None)
    results = [ours.contains(v) for v in _graph_contains_cases(ns)]
    assert results == [theirs.contains(v) for v in _graph_contains_cases(gs)]
    assert True in results and False in results


@pytest.mark.parametrize("name", list(CATALOG))
@pytest.mark.parametrize("seed", SEEDS[:2])
def test_samples_are_contained(name: str, seed: int) -> None:
    ours, _ = both(CATALOG[name], seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # integer samples of shape () are numpy scalars, cast with a warning
        for _ in range(5):
            assert ours.contains(ours.sample())


def test_box_contains_warns_when_casting() -> None:
    with pytest.warns(UserWarning, match="Casting input x to numpy array."):
        assert ns.Box(0, 1, shape=(2,)).contains([0.5, 0.5])


# ---------------------------------------------------------------------------------------------------
# repr, equality, JSON, pickling
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(CATALOG))
def test_repr_matches(name: str) -> None:
    ours, theirs = both(CATALOG[name])
    assert repr(ours) == repr(theirs)
    assert str(ours) == str(theirs)


def test_repr_examples() -> None:
    assert repr(ns.Box(-1.0, 2.0, shape=(3, 4))) == "Box(-1.0, 2.0, (3, 4), float32)"
    assert repr(ns.Box(np.array([-1.0, -2.0]), np.array([2.0, 4.0]))) == "Box([-1. -2.], [2. 4.], (2,), float32)"
    assert repr(ns.Discrete(3, start=-1, dtype=np.int32)) == "Discrete(3, start=-1, dtype=int32)"
    assert repr(ns.MultiDiscrete([3, 4], start=[1, 1])) == "MultiDiscrete([3 4], start=[1 1])"
    assert repr(ns.Sequence(ns.Discrete(2))) == "Sequence(Discrete(2), stack=False)"


EQUALITY_VARIANTS: list[Builder] = [
    lambda S: S.Box(0, 1, shape=(2,)),
    lambda S: S.Box(0, 1 + 1e-9, shape=(2,)),
    lambda S: S.Box(0, 1, shape=(2,), dtype=np.float64),
    lambda S: S.Box(0, 2, shape=(2,)),
    lambda S: S.Box(0, 1, shape=(3,)),
    lambda S: S.Discrete(3),
    lambda S: S.Discrete(3, start=1),
    lambda S: S.Discrete(3, dtype=np.int32),
    lambda S: S.Discrete(4),
    lambda S: S.MultiDiscrete([3, 2]),
    lambda S: S.MultiDiscrete([3, 2], start=[0, 1]),
    lambda S: S.MultiDiscrete([3, 2], dtype=np.int32),
    lambda S: S.MultiBinary(3),
    lambda S: S.MultiBinary([3]),
    lambda S: S.Text(3),
    lambda S: S.Text(3, charset="ab"),
    lambda S: S.Text(3, min_length=0),
    lambda S: S.Tuple([S.Discrete(3)]),
    lambda S: S.Tuple([S.Discrete(3), S.Discrete(3)]),
    lambda S: S.OneOf([S.Discrete(3)]),
    lambda S: S.Dict(a=S.Discrete(3)),
    lambda S: S.Dict(b=S.Discrete(3)),
    lambda S: S.Dict({"b": S.Discrete(3), "a": S.Discrete(2)}),
    lambda S: S.Dict({"b": S.Discrete(3), "a": S.Discrete(2)}, sort_keys=False),
    lambda S: S.Sequence(S.Discrete(3)),
    lambda S: S.Sequence(S.Discrete(3), stack=True),
    lambda S: S.Graph(S.Discrete(3), None),
    lambda S: S.Graph(S.Discrete(3), S.Discrete(2)),
]


def test_equality_agrees() -> None:
    ours = [b(ns) for b in EQUALITY_VARIANTS]
    theirs = [b(gs) for b in EQUALITY_VARIANTS]
    for i in range(len(ours)):
        for j in range(len(ours)):
            assert (ours[i] == ours[j]) == (theirs[i] == theirs[j]), (repr(ours[i]), repr(ours[j]))
        assert ours[i] == EQUALITY_VARIANTS[i](ns)
        assert ours[i] != theirs[i]  # a gymnasium space is not an nbgym space


def test_spaces_are_unhashable_like_gymnasium() -> None:
    for builder in EQUALITY_VARIANTS:
        ours, theirs = both(builder)
        assert (ours.__hash__ is None) == (theirs.__hash__ is None)


@pytest.mark.parametrize("name", list(CATALOG))
def test_jsonable_round_trip(name: str) -> None:
    ours, theirs = both(CATALOG[name], seed=3)
    ours_samples = [ours.sample() for _ in range(3)]
    theirs_samples = [theirs.sample() for _ in range(3)]
    ours_json, theirs_json = ours.to_jsonable(ours_samples), theirs.to_jsonable(theirs_samples)
    assert_same(ours_json, theirs_json)
    assert_same(ours.from_jsonable(ours_json), theirs.from_jsonable(theirs_json))


@pytest.mark.parametrize("name", list(CATALOG))
def test_pickle_and_deepcopy_round_trip(name: str) -> None:
    space = CATALOG[name](ns)
    space.seed(9)
    for clone in (pickle.loads(pickle.dumps(space)), copy.deepcopy(space)):
        assert clone == space
        assert repr(clone) == repr(space)
        # The generator state travels with the space.
        expected = copy.deepcopy(space)
        for _ in range(2):
            _assert_same_nbgym(clone.sample(), expected.sample())


def _assert_same_nbgym(a: Any, b: Any) -> None:
    if isinstance(a, ns.GraphInstance):
        for x, y in zip(a, b, strict=True):
            _assert_same_nbgym(x, y)
    elif isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _assert_same_nbgym(x, y)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _assert_same_nbgym(a[k], b[k])
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    else:
        assert type(a) is type(b) and a == b


def test_legacy_pickle_states_load() -> None:
    box = ns.Box(0, 1, shape=(2,), seed=1)
    state = dict(box.__dict__)
    state["shape"] = state.pop("_shape")
    state["np_random"] = state.pop("_np_random")
    for key in ("low_repr", "high_repr", "_all_bounded_flags", "_sample_clip"):
        state.pop(key)
    legacy = ns.Box.__new__(ns.Box)
    legacy.__setstate__(state)
    assert legacy.shape == (2,) and legacy.low_repr == "0.0"
    assert legacy.sample() in legacy

    discrete = ns.Discrete(3)
    state = dict(discrete.__dict__)
    del state["start"]
    restored = ns.Discrete.__new__(ns.Discrete)
    restored.__setstate__(state)
    assert restored.start == 0 and type(restored.start) is np.int64

    multi = ns.MultiDiscrete([2, 3])
    state = dict(multi.__dict__)
    del state["start"]
    restored_multi = ns.MultiDiscrete.__new__(ns.MultiDiscrete)
    restored_multi.__setstate__(state)
    assert_same(restored_multi.start, np.zeros(2, np.int64))


# ---------------------------------------------------------------------------------------------------
# Custom subclasses use the base class as gymnasium's do
# ---------------------------------------------------------------------------------------------------


def test_custom_space_subclass() -> None:
    class Custom(ns.Space[int]):
        def sample(self, mask: Any = None, probability: Any = None) -> int:
            return int(self.np_random.integers(10))

        def contains(self, x: Any) -> bool:
            return isinstance(x, int) and 0 <= x < 10

    space = Custom(seed=5)
    assert space.shape is None and space.dtype is None
    assert space.sample() in space
    assert space.to_jsonable([1, 2]) == [1, 2] and space.from_jsonable([1]) == [1]
    with pytest.raises(NotImplementedError):
        _ = space.is_np_flattenable
    with pytest.raises(NotImplementedError):
        ns.Space().sample()
    with pytest.raises(NotImplementedError):
        ns.Space().contains(1)
    base = ns.Space(shape=[2, 3], dtype="float32")
    assert base.shape == (2, 3) and base.dtype == np.float32
