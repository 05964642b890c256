"""``b2World::Step`` alone: the compiled Box2D port (nbgym/_box2d) against the box2d 2.3.10 wheel, on the worlds
of gymnasium's LunarLander-v3 and BipedalWalker-v3.

Runs ``n`` copies of the gymnasium 1.4.0 env with random actions. Each copy's ``b2World`` is the wheel's, and
every call the env makes on it (bodies, fixtures, joints, forces, motor setters, destruction, the listener,
a new world at LunarLander's reset) is replayed on one row of a single port ``World``. Per env step, every
copy steps (its ``world.Step`` is the wheel's, timed alone), then one compiled ``step_rows`` call steps every
row of the port (timed); resets wait until the port has stepped, so both sides see the same calls in the
same order (a reset ends with a step of its own: wheel and port row step there, untimed). At the end every body of every row must equal the wheel's, bit for bit.

The port's time includes the Python call of ``step_rows`` (the World's arrays unboxed); ``dispatch`` is that
cost alone (a compiled function of the World that does nothing), and ``physics`` the port's time without it:
what a compiled env kernel that calls ``step`` pays. Ratios are wheel time / port time::

    python benchmarks/bench_box2d_port_step.py --env lander walker --worlds 1 16 --steps 300 --repeats 3
"""

from __future__ import annotations

import argparse
import statistics
import time

import Box2D
import numpy as np
from gymnasium.envs.box2d import bipedal_walker, lunar_lander

from nbgym._box2d import revolute_joint, wheel
from nbgym._box2d import world as W
from nbgym._box2d import world_step as S
from nbgym.engine._jit import kernel

F32 = np.float32
_BODIES: dict[int, tuple["RowWorld", int]] = {}  # wheel body or joint pointer -> (its RowWorld, port index)


@kernel
def _rows(w):
    """Nothing but the call: the cost of handing a World from Python to a compiled function."""
    return w.world_i.shape[0]


class Batch:
    """One port World whose rows mirror the wheel worlds of ``n`` env copies, and the time each side spent."""

    def __init__(self, n: int, **capacity) -> None:
        self.w = W.new_world(n, **capacity)
        self.resting = np.zeros(n, np.bool_)  # every row steps
        self.row = 0  # the row of the env being made or reset (its new b2World takes it)
        self.resetting = False  # in an env's reset, which ends with a step: wheel and port row step at once
        self.worlds: list[RowWorld | None] = [None] * n
        self.wheel_time = 0.0
        self.port_time = 0.0

    def step(self, dt: float, velocity_iterations: int, position_iterations: int) -> None:
        t0 = time.perf_counter()
        S.step_rows(self.w, 0, len(self.resting), self.resting, F32(dt), velocity_iterations, position_iterations)
        self.port_time += time.perf_counter() - t0

    def exact(self) -> bool:
        """Whether every body of every row has the wheel's position, angle and velocities, bit for bit."""
        for world in self.worlds:
            bf = self.w.body_f[world.row]
            for body in world.bodies:
                b = _BODIES[int(body.this)][1]
                port = bf[b, [W.BF_PX, W.BF_PY, W.BF_A, W.BF_VX, W.BF_VY, W.BF_W]]
                want = np.array([*body.position, body.angle, *body.linearVelocity, body.angularVelocity], F32)
                if port.tobytes() != want.tobytes():
                    return False
        return not self.w.world_i[:, W.WI_ERROR].any()


BATCH: list[Batch] = []  # the batch whose rows new b2Worlds take


class RowWorld:
    """A wheel ``b2World`` replayed on a row of the current batch: what gymnasium's env sees as ``Box2D.b2World``."""

    def __init__(self, gravity=(0, -10), **kwargs) -> None:
        batch = BATCH[0]
        object.__setattr__(self, "real", Box2D.b2World(gravity=gravity, **kwargs))
        object.__setattr__(self, "batch", batch)
        object.__setattr__(self, "row", batch.row)
        object.__setattr__(self, "bodies", [])
        W.reset_world(batch.w, batch.row, F32(gravity[0]), F32(gravity[1]))
        batch.worlds[batch.row] = self

    def __getattr__(self, name):
        return getattr(self.real, name)

    def __setattr__(self, name, value):
        if name == "contactListener":
            self.real.contactListener = value
            self.batch.w.world_i[self.row, W.WI_LISTENER] = 0 if value is None else 1
        else:
            object.__setattr__(self, name, value)

    def _create(self, kind, kwargs):
        body = self.real.CreateBody(type=kind, **kwargs)
        _BODIES[int(body.this)] = (self, wheel.mirror_body(self.batch.w, self.row, body))
        self.bodies.append(body)
        return body

    def CreateStaticBody(self, **kwargs):  # noqa: N802 (Box2D's names)
        return self._create(Box2D.b2_staticBody, kwargs)

    def CreateDynamicBody(self, **kwargs):  # noqa: N802
        return self._create(Box2D.b2_dynamicBody, kwargs)

    def CreateJoint(self, rjd):  # noqa: N802
        joint = self.real.CreateJoint(rjd)
        j = wheel.mirror_revolute_joint(
            self.batch.w, self.row, rjd, _BODIES[int(rjd.bodyA.this)][1], _BODIES[int(rjd.bodyB.this)][1]
        )
        _BODIES[int(joint.this)] = (self, j)
        return joint

    def DestroyBody(self, body):  # noqa: N802
        for edge in body.joints:
            _BODIES.pop(int(edge.joint.this), None)
        port = _BODIES.pop(int(body.this))[1]
        self.bodies = [b for b in self.bodies if b.this != body.this]
        self.real.DestroyBody(body)
        S.destroy_body(self.batch.w, self.row, port)

    def Step(self, dt, velocity_iterations, position_iterations):  # noqa: N802
        if self.batch.resetting:
            self.real.Step(dt, velocity_iterations, position_iterations)
            S.step(self.batch.w, self.row, F32(dt), velocity_iterations, position_iterations)
            return
        t0 = time.perf_counter()
        self.real.Step(dt, velocity_iterations, position_iterations)
        self.batch.wheel_time += time.perf_counter() - t0


def _mirror_calls() -> None:
    """gymnasium's Box2D envs make RowWorlds, and the body and joint setters they call reach the port too."""

    class Shim:
        def __getattr__(self, name):
            return getattr(Box2D, name)

        b2World = RowWorld  # noqa: N815

    lunar_lander.Box2D = Shim()
    bipedal_walker.Box2D = Shim()

    def on_port(method, port_call, *convert):
        def call(target, *args, _method=method):
            _method(target, *args)
            world, index = _BODIES[int(target.this)]
            port_call(world.batch.w, world.row, index, *(c(a) for c, a in zip(convert, args)))

        return call

    vec = lambda v: (F32(v[0]), F32(v[1]))  # noqa: E731
    Box2D.b2Body.ApplyForceToCenter = on_port(
        Box2D.b2Body.ApplyForceToCenter, lambda w, r, b, f, wake: W.apply_force_to_center(w, r, b, *f, wake), vec, bool
    )
    Box2D.b2Body.ApplyLinearImpulse = on_port(
        Box2D.b2Body.ApplyLinearImpulse,
        lambda w, r, b, i, p, wake: W.apply_linear_impulse(w, r, b, *i, *p, wake),
        vec,
        vec,
        bool,
    )
    Box2D.b2Body.ApplyTorque = on_port(Box2D.b2Body.ApplyTorque, W.apply_torque, F32, bool)

    def create_fixture(body, *args, _original=Box2D.b2Body.CreateFixture, **kwargs):
        fixture = _original(body, *args, **kwargs)
        if int(body.this) in _BODIES:  # a fixture added after CreateBody (the moon's edges)
            world, b = _BODIES[int(body.this)]
            wheel.mirror_fixture(world.batch.w, world.row, b, fixture)
        return fixture

    Box2D.b2Body.CreateFixture = create_fixture
    for name, setter in (
        ("motorSpeed", revolute_joint.set_motor_speed),
        ("maxMotorTorque", revolute_joint.set_max_motor_torque),
    ):
        prop = getattr(Box2D.b2RevoluteJoint, name)
        setattr(Box2D.b2RevoluteJoint, name, property(prop.fget, on_port(prop.fset, setter, F32)))


def _lander_action(rng: np.random.Generator) -> int:
    return int(rng.integers(0, 4))


def _walker_action(rng: np.random.Generator) -> np.ndarray:
    return rng.uniform(-1, 1, 4).astype(np.float32)


# make, action, TimeLimit, World capacities (LunarLander keeps its engines' particles until reset: no render)
ENVS = {
    "lander": (
        lambda: lunar_lander.LunarLander(),
        _lander_action,
        1000,
        dict(bodies=1024, fixtures=1040, joints=4, contacts=2048),
    ),
    "walker": (
        lambda: bipedal_walker.BipedalWalker(),
        _walker_action,
        1600,
        dict(bodies=320, fixtures=320, joints=8, contacts=256),
    ),
}


def run(env_name: str, n: int, steps: int, seed: int) -> Batch:
    """``steps`` steps of ``n`` copies of the env on one batch (random actions, resets as a TimeLimit would)."""
    make, action_of, max_steps, capacity = ENVS[env_name]
    batch = Batch(n, **capacity)
    BATCH[:] = [batch]
    envs = []
    batch.resetting = True
    for k in range(n):
        batch.row = k
        env = make()
        env.reset(seed=seed + k)
        envs.append(env)
    batch.resetting = False
    rngs = [np.random.default_rng(seed + k) for k in range(n)]
    lengths = [0] * n
    for _ in range(steps):
        done = []
        for k, env in enumerate(envs):
            _, _, terminated, truncated, _ = env.step(action_of(rngs[k]))
            lengths[k] += 1
            if terminated or truncated or lengths[k] == max_steps:
                done.append(k)
        batch.step(1.0 / lunar_lander.FPS, 6 * 30, 2 * 30)
        batch.resetting = True
        for k in done:
            batch.row = k
            lengths[k] = 0
            envs[k].reset()
        batch.resetting = False
    if not batch.exact():
        raise AssertionError(f"{env_name}: the port's bodies differ from the wheel's")
    return batch


def dispatch_time(n: int, calls: int = 2000) -> float:
    """Seconds per Python call of a compiled function of an ``n``-row World."""
    w = W.new_world(n, bodies=8, fixtures=8, joints=2, contacts=8)
    _rows(w)
    t0 = time.perf_counter()
    for _ in range(calls):
        _rows(w)
    return (time.perf_counter() - t0) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", nargs="+", default=["lander", "walker"], choices=sorted(ENVS))
    parser.add_argument("--worlds", type=int, nargs="+", default=[1, 16])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    _mirror_calls()
    t0 = time.perf_counter()
    run(args.env[0], 1, 2, 0)  # compiles (or loads) the port before any timing
    print(f"port ready in {time.perf_counter() - t0:.1f} s")
    for env_name in args.env:
        for n in args.worlds:
            batches = [run(env_name, n, args.steps, 1000 * rep) for rep in range(args.repeats)]
            wheel = statistics.median(batch.wheel_time for batch in batches)
            port = statistics.median(batch.port_time for batch in batches)
            per = n * args.steps
            dispatch = dispatch_time(n) * args.steps
            physics = port - dispatch
            print(
                f"{env_name} {n:4d} worlds: wheel {wheel / per * 1e9:8.0f} ns  port {port / per * 1e9:8.0f} ns"
                f" (dispatch {dispatch / per * 1e9:6.0f})  wheel/port {wheel / port:5.2f}x"
                f"  wheel/physics {wheel / physics:5.2f}x  (bit-exact; medians of {args.repeats} runs)"
            )


if __name__ == "__main__":
    main()
