"""``island.iterate_to_cycle`` gives the floats of its velocity iterations computed one by one, bit for bit, for any
number of iterations: where the iterations fall into a cycle (of 1 or 2 iterations) and it replays the cycles' point
impulses, where they do not, and where a cycle does not fit in the iterations left. The islands are those of worlds
in the wheel's image (``helpers.box2d_port.Twin``, compared with the wheel as they step): arms on revolute joints with
motors and limits falling onto the ground, a loose box on them (contacts in the island), and a chain of four links."""

from __future__ import annotations

import numpy as np
import pytest

from nbgym._box2d import island
from nbgym._box2d import world as W
from nbgym._box2d import world_step as S
from helpers.box2d_port import F32, Twin, chain_twin
from helpers.jit import INTERPRETED

pytestmark = [pytest.mark.timeout(1800), *([] if INTERPRETED else [pytest.mark.cold])]

_DT = F32(1.0 / 50)


def _arms(limit: bool, speed: float, loose: bool) -> Twin:
    twin = Twin()
    twin.body(static=True, fixtures=[dict(shape=("edge", [(-20.0, 0.0), (20.0, 0.0)]), friction=0.3)])
    box = dict(shape=("box", (0.1, 0.6)), density=1.0, categoryBits=0x20, maskBits=0x1)
    base = twin.body(position=(0.0, 1.5), fixtures=[dict(shape=("box", (1.0, 0.2)), density=5.0, maskBits=0x1)])
    for side in (-1.0, 1.0):
        arm = twin.body(position=(side, 1.5), fixtures=[box])
        twin.revolute(
            base,
            arm,
            (0.8 * side, 0.0),
            (0.0, 0.5),
            lower=-0.4,
            upper=0.4,
            motor_speed=speed * side,
            max_motor_torque=40.0,
            enable_limit=limit,
            enable_motor=True,
        )
    if loose:
        twin.body(position=(0.3, 2.4), angle=0.3, fixtures=[dict(shape=("box", (0.2, 0.2)), density=1.0)])
    return twin


def _iteration_state(w: W.World) -> tuple[bytes, bytes, bytes]:
    return w.velocities[0].tobytes(), w.joint_f[0].tobytes(), w.vc_f[0].tobytes()


def _cycle_of(w: W.World, nb: int, nc: int, nj: int, iterations: int) -> tuple[int, int]:
    """The period (1 or 2) of the first cycle of what an iteration reads, iterating a copy of ``w`` one by one, and the
    iterations after which it repeats; ``(0, iterations)`` if it does not within ``iterations``."""
    w = W.World(*[array.copy() for array in w])
    read = [W.JF_IMPZ, W.JF_MOTOR_IMP]
    seen = []
    for done in range(iterations):
        seen.append((w.velocities[0, :nb].tobytes(), w.joint_f[0][:, read].tobytes(), w.vc_f[0, :nc].tobytes()))
        for period in (1, 2):
            if len(seen) > period and seen[-1] == seen[-1 - period]:
                return period, done
        _iterate(w, nc, nj, 1)
    return 0, iterations


def _iterate(w: W.World, nc: int, nj: int, iterations: int) -> None:
    for _ in range(iterations):
        island._iteration(
            w.joint_i[0], w.joint_f[0], w.isl_joints[0], w.velocities[0], w.vc_f[0], w.vc_i[0], nc, nj, _DT
        )


@pytest.mark.parametrize("world", ["arms", "arms at their limits", "arms and a box", "chain"])
def test_iterations_to_a_cycle_are_the_iterations_one_by_one(world):
    twin = {
        "arms": lambda: _arms(False, 0.3, False),
        "arms at their limits": lambda: _arms(True, 3.0, False),
        "arms and a box": lambda: _arms(True, 0.3, True),
        "chain": chain_twin,
    }[world]()
    counts = [1, 2, 3, 7, 60, 179, 180]
    periods = set()
    for t in range(40):
        S._begin_step(twin.w, 0, _DT, 180, 60, True)  # held before the velocity iterations of the island with joints
        wi = twin.w.world_i[0]
        assert wi[W.WI_HELD] == 1
        nb, nc, nj = wi[W.WI_HELD_BODIES], wi[W.WI_HELD_CONTACTS], wi[W.WI_HELD_JOINTS]
        periods.add(_cycle_of(twin.w, nb, nc, nj, max(counts))[0])
        for iterations in counts:
            one_by_one = W.World(*[array.copy() for array in twin.w])
            to_cycle = W.World(*[array.copy() for array in twin.w])
            _iterate(one_by_one, nc, nj, iterations)
            island.iterate_to_cycle(
                *(to_cycle.joint_i[0], to_cycle.joint_f[0], to_cycle.isl_joints[0], to_cycle.velocities[0]),
                *(to_cycle.vc_f[0], to_cycle.vc_i[0], nb, nc, nj, _DT, iterations, to_cycle.lanes[0]),
            )
            assert _iteration_state(to_cycle) == _iteration_state(one_by_one), f"step {t}, {iterations} iterations"
        island.iterate_velocities(twin.w, 0, nb, nc, nj, _DT, 180)
        S._end_step(twin.w, 0, _DT, 180, 60)
        twin.ref.Step(float(_DT), 180, 60)
        twin.compare(f"step {t}")
    assert {1, 2} <= periods, periods  # cycles of each length were replayed


@pytest.mark.skipif(not INTERPRETED, reason="counts the iterations as Python calls of island._iteration")
def test_iterations_stop_soon_after_what_they_read_repeats(monkeypatch):
    """The iterations that ``iterate_to_cycle`` computes, over 40 steps of each world, are at most 3% more than those
    after which what an iteration reads first repeats (what a search that looked at every iteration would compute):
    1.8% more here. Looking over 1 iteration where the first body's velocity repeated after 1 (a body that settles
    while others still alternate) computed 4.9% more in these worlds, 9.7% in BipedalWalker's (1.2% now)."""
    computed = first_repeats = 0
    iteration = island._iteration

    def counted(*args):
        nonlocal computed
        computed += 1
        iteration(*args)

    for twin in (_arms(False, 0.3, False), _arms(True, 3.0, False), _arms(True, 0.3, True), chain_twin()):
        for _ in range(40):
            S._begin_step(twin.w, 0, _DT, 180, 60, True)
            wi = twin.w.world_i[0]
            nb, nc, nj = wi[W.WI_HELD_BODIES], wi[W.WI_HELD_CONTACTS], wi[W.WI_HELD_JOINTS]
            first_repeats += _cycle_of(twin.w, nb, nc, nj, 180)[1]
            with monkeypatch.context() as patched:
                patched.setattr(island, "_iteration", counted)
                island.iterate_velocities(twin.w, 0, nb, nc, nj, _DT, 180)
            S._end_step(twin.w, 0, _DT, 180, 60)
    assert computed <= 1.03 * first_repeats, (computed, first_repeats)


def test_the_copies_compared_hold_every_float_an_iteration_changes_but_the_point_impulses():
    """A cycle is confirmed by comparing ``_note``'s copies: each float an iteration changes (velocities, limit, motor
    and contact impulses; not the joints' point impulses, which it only adds to) must change them when it changes."""
    twin = _arms(True, 0.3, True)
    seen_contacts = False
    for _ in range(40):
        S._begin_step(twin.w, 0, _DT, 180, 60, True)
        wi = twin.w.world_i[0]
        nb, nc, nj = wi[W.WI_HELD_BODIES], wi[W.WI_HELD_CONTACTS], wi[W.WI_HELD_JOINTS]
        seen_contacts |= nc > 0
        before = W.World(*[array.copy() for array in twin.w])
        after = W.World(*[array.copy() for array in twin.w])
        _iterate(after, nc, nj, 3)
        point = np.zeros(after.joint_f.shape[2], bool)
        point[[W.JF_IMPX, W.JF_IMPY]] = True
        for field, skip in (("velocities", None), ("joint_f", point), ("vc_f", None)):
            changed = getattr(after, field)[0] != getattr(before, field)[0]
            if skip is not None:
                changed[:, skip] = False
            for index in zip(*np.nonzero(changed)):
                nudged = W.World(*[array.copy() for array in after])
                value = getattr(nudged, field)[0][index]
                getattr(nudged, field)[0][index] = np.nextafter(value, F32(np.inf), dtype=F32)
                copies = [np.zeros_like(after.lanes[0]) for _ in range(2)]
                for world, copy in zip((after, nudged), copies):
                    island._note(
                        copy, 0, world.velocities[0], world.joint_f[0], world.isl_joints[0], world.vc_f[0], nb, nc, nj
                    )
                assert copies[0].tobytes() != copies[1].tobytes(), (field, index)
        island.iterate_velocities(twin.w, 0, nb, nc, nj, _DT, 180)
        S._end_step(twin.w, 0, _DT, 180, 60)
    assert seen_contacts
