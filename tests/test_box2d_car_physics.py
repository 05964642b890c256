"""CarRacing's physics on the compiled Box2D port (nbgym/envs/box2d/car_racing_physics.py) against gymnasium
1.4.0's CarRacing on the box2d 2.3.10 wheel, bit for bit; and the port's contact-event listener against the
wheel's.

gymnasium's env runs with its ``_render`` replaced by a no-op (drawing reads the state and changes nothing; it
is 12 ms of a step). After its reset and after every step, the rows are compared with the env's Box2D bodies
(positions, angles, velocities of the hull and wheels as float32), the wheels' Python floats (gas, brake,
steer, phase, omega, number of tiles under them), the env's reward bookkeeping, the tiles' visited flags,
``track``, ``road_poly`` (vertices and live colours) and the skid particles; and the rows' step reward,
terminated flag and ``lap_finished`` with the step's.
"""

from __future__ import annotations

import os

import Box2D
import numpy as np
import pytest
from test_box2d_port_world import Twin

from nbgym._box2d import world as W

pytestmark = pytest.mark.timeout(1800)  # the first test compiles the port and the car (minutes on a loaded machine)

INTERPRETED = os.environ.get("NUMBA_DISABLE_JIT", "0") == "1"
"""Interpreted (CI's second run), the kernels are plain Python: the runs take fewer steps and seeds."""


def steps(n: int) -> int:
    return max(5, n // 20) if INTERPRETED else n


# ------------------------------------------------------------------------------- the port's event listener


class EventListener(Box2D.b2ContactListener):
    """Records every BeginContact/EndContact as (fixture A's port index, fixture B's, begin), in call order."""

    def __init__(self) -> None:
        Box2D.b2ContactListener.__init__(self)
        self.events: list[tuple[int, int, int]] = []

    def BeginContact(self, contact):  # noqa: N802 (Box2D's name)
        self.events.append((contact.fixtureA.userData, contact.fixtureB.userData, 1))

    def EndContact(self, contact):  # noqa: N802
        self.events.append((contact.fixtureA.userData, contact.fixtureB.userData, 0))


def test_listener_records_sensor_and_solid_contact_events_in_the_wheels_order():
    twin = Twin(gravity=(0.0, 0.0), listener=False, bodies=64, fixtures=64, contacts=128, events=64)
    listener = EventListener()
    twin.ref.contactListener = listener
    twin.w.world_i[0, W.WI_LISTENER] = W.LISTEN_EVENTS | W.LISTEN_BODIES
    # a row of static sensor tiles (as CarRacing's), a solid static block, and two dynamic bodies crossing them
    for k in range(12):
        x = 1.5 * k
        twin.body(static=True, fixtures=[dict(shape=("polygon", [(x, -1.0), (x + 1.6, -1.0), (x + 1.6, 1.0),
                                                                  (x, 1.0)]), isSensor=True)])
    twin.body(static=True, position=(9.0, 3.0), fixtures=[dict(shape=("box", (0.5, 0.5)))])
    twin.body(position=(-2.0, 0.2), angle=0.3, linearVelocity=(6.0, 0.5), angularVelocity=1.0,
              fixtures=[dict(shape=("box", (0.4, 0.8)), density=1.0),
                        dict(shape=("circle", 0.3, (0.0, 1.0)), density=1.0)])
    twin.body(position=(9.0, -3.0), linearVelocity=(0.0, 7.0),
              fixtures=[dict(shape=("box", (0.2, 0.2)), density=1.0, categoryBits=0x20, maskBits=0x1)])
    for ref_body, _port_body, ref_fixture, f in twin.fixtures:
        ref_fixture.userData = f
    recorded = 0
    for t in range(steps(120)):
        twin.step()
        twin.compare(f"step {t}")
        n = twin.w.world_i[0, W.WI_EVENT_COUNT]
        got = [tuple(int(v) for v in twin.w.events[0, e]) for e in range(n)]
        assert got == listener.events, f"step {t}"
        recorded += n
        listener.events.clear()
        twin.w.world_i[0, W.WI_EVENT_COUNT] = 0
    assert recorded >= 20  # both bodies crossed several tiles (sensor events) and the box hit the block


def test_listener_event_buffer_overflow_is_reported():
    twin = Twin(gravity=(0.0, 0.0), listener=False, events=1)
    twin.w.world_i[0, W.WI_LISTENER] = W.LISTEN_EVENTS
    for k in range(2):
        twin.body(static=True, position=(float(k), 0.0), fixtures=[dict(shape=("box", (0.6, 0.6)), isSensor=True)])
    twin.body(position=(0.5, 0.0), fixtures=[dict(shape=("box", (0.2, 0.2)), density=1.0)])
    twin.ref.Step(1.0 / 50, 6, 2)
    from nbgym._box2d import world_step

    world_step.step(twin.w, 0, np.float32(1.0 / 50), 6, 2)
    assert twin.w.world_i[0, W.WI_EVENT_COUNT] == 1
    assert twin.w.world_i[0, W.WI_ERROR] == W.ERR_EVENTS
