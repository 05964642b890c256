"""The velocity iterations of several worlds side by side (``world_step.step_rows``, ``joint_lanes`` and
``contact_lanes``) give every world the floats that ``world_step.step`` gives it alone, bit for bit: worlds whose
joints have motors or not, limits at the lower or upper side, equal limits or none, contacts of one or two points or
none, in different numbers, on joint bodies, on a loose box and on the ground, more worlds than a vector has lanes,
worlds whose joints differ from the rest or that hold more contacts than their rows' vectors (iterated alone), and
worlds that rest at some steps."""

from __future__ import annotations

import numpy as np
import pytest

from nbgym._box2d import joint_lanes
from nbgym._box2d import world as W
from nbgym._box2d import world_step as S
from nbgym._box2d.contact_lanes import SOURCE_A, SOURCE_B, SOURCE_LANES
from nbgym._box2d.simd import LANES
from helpers.box2d_port import F32, Twin, chain_twin
from helpers.jit import INTERPRETED

pytestmark = [pytest.mark.timeout(1800), *([] if INTERPRETED else [pytest.mark.cold])]

_SCRATCH_WORLD_COLUMNS = [W.WI_HELD, W.WI_HELD_BODIES, W.WI_HELD_CONTACTS, W.WI_HELD_JOINTS, W.WI_HELD_SEED, W.WI_LANE]
_SCRATCH_JOINT_COLUMNS = [W.JI_SLOTA, W.JI_SLOTB]


def _arm_world(angle: float, speed: float, lower: float, upper: float, limit: bool, motor: bool, loose: bool) -> Twin:
    """A base with two arms on revolute joints (the first with the motor and limits given), falling on the ground, and
    a loose box falling on the base if ``loose`` (a body of the island that no joint holds)."""
    twin = Twin()
    twin.body(static=True, fixtures=[dict(shape=("edge", [(-20.0, 0.0), (20.0, 0.0)]), friction=0.3)])
    base = twin.body(
        position=(0.0, 0.75 + angle),
        fixtures=[dict(shape=("box", (1.0, 0.2)), density=5.0, categoryBits=0x10, maskBits=0x1)],
    )
    arm = twin.body(
        position=(1.0, 0.75),
        angle=angle,
        fixtures=[dict(shape=("box", (0.1, 0.6)), density=1.0, categoryBits=0x20, maskBits=0x1)],
    )
    free = twin.body(
        position=(-1.0, 0.75), fixtures=[dict(shape=("box", (0.1, 0.6)), density=1.0, categoryBits=0x20, maskBits=0x1)]
    )
    twin.revolute(
        base,
        arm,
        (0.8, 0.0),
        (0.0, 0.5),
        lower=lower,
        upper=upper,
        motor_speed=speed,
        max_motor_torque=40.0,
        enable_limit=limit,
        enable_motor=motor,
    )
    twin.revolute(base, free, (-0.8, 0.0), (0.0, 0.5), lower=-0.2, upper=0.3, enable_limit=True)
    if loose:
        # tumbling and bouncing: one point of two lifting or both (the block solver's cases 2 to 4)
        box = dict(shape=("box", (0.2, 0.2)), density=1.0, friction=0.5, restitution=0.4)
        twin.body(position=(0.3, 1.4 + angle), angle=0.3, angularVelocity=6.0 * speed, fixtures=[box])
    return twin


def _worlds(count: int, lane_contacts: int = 8) -> W.World:
    """``count`` rows of different worlds: arms with every kind of joint, loose boxes on every third, and a chain every
    sixth row; ``lane_contacts`` contacts in each row's vectors."""
    twins = []
    for r in range(count):
        if r % 6 == 5:
            twins.append(chain_twin())
            continue
        lower, upper, limit = [(-0.4, 0.4, True), (0.1, 0.1, True), (0.0, 0.5, True), (-0.4, 0.4, False)][r % 4]
        twins.append(
            _arm_world(0.05 * r - 0.3, 3.0 if r % 3 else -3.0, lower, upper, limit, motor=r % 5 != 4, loose=r % 3 == 1)
        )
    fields = {field: np.concatenate([getattr(twin.w, field) for twin in twins]) for field in W.World._fields}
    for field in ("contact_lanes", "contact_sources"):
        fields[field] = np.ascontiguousarray(fields[field][:, :lane_contacts])
    return W.World(**fields)


def _physics(w: W.World) -> list[np.ndarray]:
    """What the worlds are, without the scratch that only ``step_rows`` writes."""
    world_i = np.delete(w.world_i, _SCRATCH_WORLD_COLUMNS, axis=1)
    joint_i = np.delete(w.joint_i, _SCRATCH_JOINT_COLUMNS, axis=2)
    return [w.body_f, w.body_i, w.joint_f, joint_i, w.contact_f, w.contact_i, w.man_f, w.world_f, world_i]


_UNTOUCHED = -2
"""Written into ``contact_sources``' lane lists before a step: still there after it, no contact went in vectors."""


def _contact_paths(w: W.World, count: int, resting: np.ndarray) -> set[str]:
    """How the last step solved the contacts of each set of worlds in vectors that held some: in vectors or world by
    world; and what the vectors held: several lanes with a contact, a second point, a body of a joint, another body."""
    used = set()
    firsts = [g for g in range(count) if w.world_i[g, W.WI_LANE] == 0 and not resting[g]] + [count]
    for g, end in zip(firsts, firsts[1:]):
        rows = [r for r in range(g, end) if w.world_i[r, W.WI_LANE] >= 0 and not resting[r]]
        most = int(w.world_i[rows, W.WI_HELD_CONTACTS].max())
        if len(rows) < 2 or most == 0:
            continue
        if w.contact_sources[g, 0, SOURCE_LANES, 0] == _UNTOUCHED:
            used.add("world by world")
            continue
        used.add("vectors")
        for c in range(most):
            sources = w.contact_sources[g, c]
            lanes = sources[SOURCE_LANES][sources[SOURCE_LANES] >= 0]
            if len(lanes) > 1:
                used.add("several lanes")
            if w.contact_lanes[g, c, W.CL_SECOND * LANES + lanes].any():
                used.add("two points")
            bodies = np.concatenate([sources[SOURCE_A, lanes], sources[SOURCE_B, lanes]])
            used.update(["joint body"] if (bodies >= 0).any() else [])
            used.update(["other body"] if (bodies < 0).any() else [])
    return used


def _stepped_side_by_side_and_alone(count: int, lane_contacts: int, steps: int) -> tuple[W.World, set, set]:
    """Steps ``count`` worlds side by side and each alone, asserting the same floats at each step; returns the worlds
    stepped side by side, the lanes they took and how their contacts were solved."""
    lanes = _worlds(count, lane_contacts)
    alone = W.World(*[array.copy() for array in lanes])
    rng = np.random.default_rng(count)
    dt = F32(1.0 / 50)
    lane_use = set()
    contact_paths = set()
    for t in range(steps):
        resting = rng.random(count) < 0.2
        lanes.contact_sources[:, :, SOURCE_LANES] = _UNTOUCHED
        S.step_rows(lanes, 0, count, resting, dt, 180, 60)
        lane_use.update(int(lanes.world_i[r, W.WI_LANE]) for r in range(count) if not resting[r])
        contact_paths |= _contact_paths(lanes, count, resting)
        for r in range(count):
            if not resting[r]:
                S.step(alone, r, dt, 180, 60)
        for got, want in zip(_physics(lanes), _physics(alone)):
            assert got.tobytes() == want.tobytes(), f"step {t}"
        assert not lanes.world_i[:, W.WI_ERROR].any()
    return lanes, lane_use, contact_paths


@pytest.mark.parametrize(("count", "lane_contacts"), [(1, 8), (3, 8), (LANES + 3, 8), (LANES + 3, 1)])
def test_worlds_stepped_side_by_side_are_each_stepped_alone(count, lane_contacts):
    lanes, lane_use, contact_paths = _stepped_side_by_side_and_alone(count, lane_contacts, 12 if INTERPRETED else 150)
    if count == 1:  # a world alone steps as ``step`` steps it: nothing is held
        assert not lanes.world_i[:, W.WI_HELD_JOINTS].any()
    else:  # several share the vectors, and the chains iterate alone
        assert max(lane_use) > 1 and (count < 6 or -1 in lane_use)
        assert lanes.world_i[:, W.WI_HELD_CONTACTS].any()  # islands with contacts, at the last step
    if count == 3:  # 3 worlds hold too few contacts for the vectors
        assert contact_paths == {"world by world"}
    if count > LANES and lane_contacts > 1:
        assert {"vectors", "several lanes", "two points", "joint body", "other body"} <= contact_paths


@pytest.mark.skipif(not INTERPRETED, reason="compiled, CONTACT_LANES_MIN is a constant of the machine code")
@pytest.mark.parametrize(("contact_lanes_min", "path"), [(0, "vectors"), (LANES + 1, "world by world")])
def test_contacts_in_vectors_and_world_by_world_give_the_same_floats(monkeypatch, contact_lanes_min, path):
    monkeypatch.setattr(joint_lanes, "CONTACT_LANES_MIN", contact_lanes_min)
    _, _, contact_paths = _stepped_side_by_side_and_alone(LANES + 3, 8, 12)
    assert path in contact_paths
    if path == "vectors":
        assert {"several lanes", "two points", "joint body", "other body"} <= contact_paths


def test_the_worlds_cover_every_limit_state():
    w = _worlds(LANES)
    resting = np.zeros(LANES, np.bool_)
    states = set()
    for _ in range(12 if INTERPRETED else 60):
        S.step_rows(w, 0, LANES, resting, F32(1.0 / 50), 180, 60)
        states.update(w.joint_i[:, :2, W.JI_LIMIT_STATE].ravel().tolist())
    assert states == {0, 1, 2, 3}


@pytest.mark.skipif(INTERPRETED, reason="interpreted, the vector operations are numpy's and nothing is cached")
def test_the_vector_operations_are_part_of_the_box2d_kernels_cache_key():
    from nbgym.envs.box2d.lunar_lander.physics import PHYSICS

    files = {span.filename for spans in PHYSICS.code.values() for span in spans}
    assert any(file.endswith("_box2d/simd.py") for file in files)
