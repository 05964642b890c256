"""The dynamics half of the compiled Box2D port (nbgym/_box2d: world, contacts, contact solver, revolute
joints, islands, Step/SolveTOI) against the box2d 2.3.10 wheel, bit for bit.

Each test builds the same world in both (the same calls in the same order, the same float values), steps
both, and compares every body's position, angle, velocities, awake flag and the listener's contact flags
after every step."""

from __future__ import annotations

import math

import Box2D
import numpy as np
import pytest

from nbgym._box2d import revolute_joint, wheel
from nbgym._box2d import world as W
from nbgym._box2d import world_step as S
from helpers.box2d_port import F32, Twin
from helpers.jit import INTERPRETED

# The first test compiles the whole port's functions as Python entry points (minutes): `cold` when compiled.
pytestmark = [pytest.mark.timeout(1800), *([] if INTERPRETED else [pytest.mark.cold])]

"""Interpreted (CI's second run), the kernels are plain Python: the env-shaped runs take fewer steps."""


def steps(n: int) -> int:
    return max(5, n // 10) if INTERPRETED else n


def ground(twin: Twin, x0=-20.0, x1=20.0, y=0.0, friction=0.2) -> int:
    return twin.body(static=True, fixtures=[dict(shape=("edge", [(x0, y), (x1, y)]), friction=friction)])


# ----------------------------------------------------------------------------------------------- tests


def test_free_fall_with_force_and_impulse():
    twin = Twin()
    b = twin.body(position=(0.3, 10.0), angle=0.2, fixtures=[dict(shape=("box", (0.5, 0.25)), density=2.0)])
    ref, port, _ = twin.bodies[b]
    ref.ApplyForceToCenter((3.0, 1.0), True)
    W.apply_force_to_center(twin.w, 0, port, F32(3.0), F32(1.0), True)
    twin.step()
    twin.compare("after force")
    ref.ApplyLinearImpulse((0.7, -0.2), (0.5, 10.2), True)
    W.apply_linear_impulse(twin.w, 0, port, F32(0.7), F32(-0.2), F32(0.5), F32(10.2), True)
    twin.run(40)


def test_box_falls_on_edge_ground_and_sleeps():
    twin = Twin()
    ground(twin)
    twin.body(position=(0.0, 4.0), angle=0.3, fixtures=[dict(shape=("box", (0.5, 0.5)), density=1.0, friction=0.6)])
    twin.run(200)
    assert not twin.bodies[1][0].awake  # it came to rest and fell asleep in both


def test_stack_of_boxes_and_polygons():
    twin = Twin()
    ground(twin, friction=0.5)
    for k in range(5):
        twin.body(
            position=(0.05 * k, 0.55 + 1.05 * k),
            angle=0.01 * k,
            fixtures=[dict(shape=("box", (0.5, 0.5)), density=1.0 + k, friction=0.4)],
        )
    twin.body(
        position=(2.5, 3.0),
        fixtures=[
            dict(shape=("polygon", [(-0.5, -0.3), (0.6, -0.3), (0.8, 0.2), (0.0, 0.5), (-0.6, 0.1)]), density=3.0)
        ],
    )
    twin.body(position=(-2.0, 6.0), fixtures=[dict(shape=("circle", 0.3, (0.0, 0.0)), density=1.0, restitution=0.5)])
    twin.run(steps(150))


def test_revolute_joint_with_motor_and_limits():
    twin = Twin()
    ground(twin)
    base = twin.body(
        position=(0.0, 5.0), fixtures=[dict(shape=("box", (1.0, 0.2)), density=5.0, categoryBits=0x10, maskBits=0x1)]
    )
    arm = twin.body(
        position=(1.0, 5.0),
        angle=0.05,
        fixtures=[dict(shape=("box", (0.1, 0.6)), density=1.0, categoryBits=0x20, maskBits=0x1)],
    )
    twin.revolute(
        base,
        arm,
        (0.8, 0.0),
        (0.0, 0.5),
        lower=-0.4,
        upper=0.4,
        motor_speed=2.0,
        max_motor_torque=40.0,
        enable_limit=True,
        enable_motor=True,
    )
    free = twin.body(
        position=(-1.0, 5.0), fixtures=[dict(shape=("box", (0.1, 0.6)), density=1.0, categoryBits=0x20, maskBits=0x1)]
    )
    joint, j = twin.revolute(base, free, (-0.8, 0.0), (0.0, 0.5))

    def drive(t):
        if t % 20 == 0:
            speed = 3.0 * math.sin(t)
            twin.bodies[arm][0].joints[0].joint.motorSpeed = speed
            revolute_joint.set_motor_speed(twin.w, 0, 0, F32(speed))

    twin.run(steps(150), drive)


def test_equal_limits_and_no_limit_joint_chain():
    twin = Twin(gravity=(0.0, -9.8))
    anchor = twin.body(static=True, position=(0.0, 10.0))
    prev = anchor
    for k in range(4):
        link = twin.body(position=(0.5 + k, 10.0), fixtures=[dict(shape=("box", (0.5, 0.1)), density=1.0)])
        twin.revolute(prev, link, (0.5 if k else 0.0, 0.0), (-0.5, 0.0), lower=0.1, upper=0.1, enable_limit=(k == 1))
        prev = link
    twin.run(steps(120))


def test_destroy_bodies_mid_run():
    twin = Twin()
    ground(twin)
    for k in range(4):
        twin.body(position=(k - 1.5, 1.0 + k), fixtures=[dict(shape=("circle", 0.2, (0.0, 0.0)), density=1.0)])
    twin.run(30)
    twin.destroy(2)
    twin.run(20)
    twin.body(position=(0.0, 3.0), fixtures=[dict(shape=("box", (0.3, 0.3)), density=1.0)])
    twin.destroy(1)
    twin.run(40)


# ------------------------------------------------------------------------ gymnasium's envs, mirrored
#
# The envs run on the wheel as gymnasium wrote them; their world is a MirrorWorld that forwards every call
# to the wheel's b2World and replays it on the port (bodies, fixtures with the wheel's own shape data,
# joints, destruction, the listener switch, Step), and the bodies' force, impulse and motor setters are
# mirrored too. After every Step, every body of the port is compared with the wheel's, and the port's
# listener flags with the env's ``game_over``/``ground_contact``.


_MIRRORS: dict[int, tuple["MirrorWorld", int]] = {}  # wheel body pointer -> (mirror, port body)


class MirrorWorld:
    def __init__(self, gravity=(0, -10), **kwargs) -> None:
        object.__setattr__(self, "real", Box2D.b2World(gravity=gravity, **kwargs))
        object.__setattr__(self, "w", W.new_world(1, bodies=320, fixtures=320, joints=8, contacts=256, gravity=gravity))
        object.__setattr__(self, "order", [])  # wheel bodies in creation order
        object.__setattr__(self, "steps", 0)
        object.__setattr__(self, "env", None)

    def __getattr__(self, name):
        return getattr(self.real, name)

    def __setattr__(self, name, value):
        if name == "contactListener":
            self.real.contactListener = value
            self.w.world_i[0, W.WI_LISTENER] = 0 if value is None else 1
        else:
            object.__setattr__(self, name, value)

    def _create(self, kind, kwargs):
        body = self.real.CreateBody(type=kind, **kwargs)
        port = wheel.mirror_body(self.w, 0, body)
        _MIRRORS[int(body.this)] = (self, port)
        self.order.append(body)
        return body

    def CreateStaticBody(self, **kwargs):  # noqa: N802
        return self._create(Box2D.b2_staticBody, kwargs)

    def CreateDynamicBody(self, **kwargs):  # noqa: N802
        return self._create(Box2D.b2_dynamicBody, kwargs)

    def CreateJoint(self, rjd):  # noqa: N802
        joint = self.real.CreateJoint(rjd)
        pa = _MIRRORS[int(rjd.bodyA.this)][1]
        pb = _MIRRORS[int(rjd.bodyB.this)][1]
        j = wheel.mirror_revolute_joint(self.w, 0, rjd, pa, pb)
        _MIRRORS[int(joint.this)] = (self, j)
        return joint

    def DestroyBody(self, body):  # noqa: N802
        key = int(body.this)
        for edge in body.joints:
            _MIRRORS.pop(int(edge.joint.this), None)
        _, port = _MIRRORS.pop(key)
        self.order = [b for b in self.order if int(b.this) != key]
        self.real.DestroyBody(body)
        S.destroy_body(self.w, 0, port)

    def Step(self, dt, velocity_iterations, position_iterations):  # noqa: N802
        self.real.Step(dt, velocity_iterations, position_iterations)
        S.step(self.w, 0, F32(dt), velocity_iterations, position_iterations)
        object.__setattr__(self, "steps", self.steps + 1)
        self.compare()

    def compare(self) -> None:
        assert self.w.world_i[0, W.WI_ERROR] == 0
        bf = self.w.body_f[0]
        bi = self.w.body_i[0]
        for n, body in enumerate(self.order):
            port = _MIRRORS[int(body.this)][1]
            got = np.array(
                [
                    bf[port, W.BF_PX],
                    bf[port, W.BF_PY],
                    bf[port, W.BF_A],
                    bf[port, W.BF_VX],
                    bf[port, W.BF_VY],
                    bf[port, W.BF_W],
                ],
                np.float32,
            )
            want = np.array(
                [
                    body.position[0],
                    body.position[1],
                    body.angle,
                    body.linearVelocity[0],
                    body.linearVelocity[1],
                    body.angularVelocity,
                ],
                np.float64,
            ).astype(np.float32)
            assert got.tobytes() == want.tobytes(), (
                f"step {self.steps} body {n}: port {got.tolist()} wheel {want.tolist()}"
            )
            assert bool(bi[port, W.BI_FLAGS] & W.AWAKE_FLAG) == body.awake, f"step {self.steps} body {n} awake"
        assert self.w.world_i[0, W.WI_CONTACT_COUNT] == self.real.contactCount, (
            f"step {self.steps}: {self.w.world_i[0, W.WI_CONTACT_COUNT]} contacts, wheel {self.real.contactCount} "
            f"{[(self.order.index(c.fixtureA.body), self.order.index(c.fixtureB.body), c.touching) for c in self.real.contacts]}"
        )
        env = self.env
        if env is not None and self.w.world_i[0, W.WI_LISTENER]:
            main = env.lander if hasattr(env, "lander") else env.hull
            assert bool(bi[_MIRRORS[int(main.this)][1], W.BI_BEGUN]) == env.game_over, f"step {self.steps} game_over"
            for leg in env.legs:
                if hasattr(leg, "ground_contact"):
                    port = _MIRRORS[int(leg.this)][1]
                    assert bool(bi[port, W.BI_TOUCH]) == leg.ground_contact, f"step {self.steps} ground_contact"


@pytest.fixture
def mirrored(monkeypatch):
    """gymnasium's Box2D envs on MirrorWorlds, with the wheel's force/impulse/motor setters mirrored."""
    from gymnasium.envs.box2d import bipedal_walker, lunar_lander

    class Shim:
        def __getattr__(self, name):
            return getattr(Box2D, name)

        b2World = MirrorWorld  # noqa: N815

    monkeypatch.setattr(lunar_lander, "Box2D", Shim())
    monkeypatch.setattr(bipedal_walker, "Box2D", Shim())

    def force_to_center(body, force, wake, _original=Box2D.b2Body.ApplyForceToCenter):
        _original(body, force, wake)
        mirror, port = _MIRRORS[int(body.this)]
        W.apply_force_to_center(mirror.w, 0, port, F32(force[0]), F32(force[1]), bool(wake))

    def linear_impulse(body, impulse, point, wake, _original=Box2D.b2Body.ApplyLinearImpulse):
        _original(body, impulse, point, wake)
        mirror, port = _MIRRORS[int(body.this)]
        W.apply_linear_impulse(
            mirror.w, 0, port, F32(impulse[0]), F32(impulse[1]), F32(point[0]), F32(point[1]), bool(wake)
        )

    def torque(body, value, wake, _original=Box2D.b2Body.ApplyTorque):
        _original(body, value, wake)
        mirror, port = _MIRRORS[int(body.this)]
        W.apply_torque(mirror.w, 0, port, F32(value), bool(wake))

    def joint_setter(setter, prop):
        def set_value(joint, value):
            prop.fset(joint, value)
            mirror, j = _MIRRORS[int(joint.this)]
            setter(mirror.w, 0, j, F32(value))

        return property(prop.fget, set_value)

    def create_fixture(body, *args, _original=Box2D.b2Body.CreateFixture, **kwargs):
        fixture = _original(body, *args, **kwargs)
        if int(body.this) in _MIRRORS:  # a fixture added after CreateBody (the moon's edges)
            mirror, port = _MIRRORS[int(body.this)]
            wheel.mirror_fixture(mirror.w, 0, port, fixture)
        return fixture

    monkeypatch.setattr(Box2D.b2Body, "CreateFixture", create_fixture)
    monkeypatch.setattr(Box2D.b2Body, "ApplyForceToCenter", force_to_center)
    monkeypatch.setattr(Box2D.b2Body, "ApplyLinearImpulse", linear_impulse)
    monkeypatch.setattr(Box2D.b2Body, "ApplyTorque", torque)
    monkeypatch.setattr(
        Box2D.b2RevoluteJoint,
        "motorSpeed",
        joint_setter(revolute_joint.set_motor_speed, Box2D.b2RevoluteJoint.motorSpeed),
    )
    monkeypatch.setattr(
        Box2D.b2RevoluteJoint,
        "maxMotorTorque",
        joint_setter(revolute_joint.set_max_motor_torque, Box2D.b2RevoluteJoint.maxMotorTorque),
    )
    yield lunar_lander, bipedal_walker
    _MIRRORS.clear()


def _run_env(env, steps, seed, action_of, particles=False, max_episode_steps=1000):
    """Random actions for ``steps`` steps, resetting at the end of an episode (or after ``max_episode_steps``,
    as gymnasium's TimeLimit); returns the number of episodes that ended."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    env.world.env = env
    episodes = 0
    length = 0
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(action_of(rng))
        length += 1
        truncated = truncated or length == max_episode_steps
        if particles:  # what render() does to the particles' lives
            for p in env.particles:
                p.ttl -= 0.15
        if terminated or truncated:
            episodes += 1
            length = 0
            env.reset()
            env.world.env = env
    return episodes


@pytest.mark.parametrize("continuous", [False, True])
def test_lunar_lander_world(mirrored, continuous):
    lunar_lander, _ = mirrored
    env = lunar_lander.LunarLander(continuous=continuous, enable_wind=continuous, render_mode="rgb_array")
    if continuous:
        action_of = lambda rng: rng.uniform(-1, 1, 2).astype(np.float32)  # noqa: E731
    else:
        action_of = lambda rng: int(rng.integers(0, 4))  # noqa: E731
    _run_env(env, steps(400), 3, action_of, particles=True)


def test_bipedal_walker_world(mirrored):
    _, bipedal_walker = mirrored
    env = bipedal_walker.BipedalWalker()
    _run_env(env, steps(300), 5, lambda rng: rng.uniform(-1, 1, 4).astype(np.float32))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_long_episodes(mirrored, seed):
    lunar_lander, bipedal_walker = mirrored
    lander = lunar_lander.LunarLander(continuous=bool(seed % 2), enable_wind=bool(seed % 2), render_mode="rgb_array")
    if seed % 2:
        action_of = lambda rng: rng.uniform(-1, 1, 2).astype(np.float32)  # noqa: E731
    else:
        action_of = lambda rng: int(rng.integers(0, 4))  # noqa: E731
    assert _run_env(lander, 5000, seed, action_of, particles=True) > 0
    walker = bipedal_walker.BipedalWalker(hardcore=bool(seed % 2))
    assert (
        _run_env(
            walker,
            3000,
            seed,
            lambda rng: rng.uniform(-1, 1, 4).astype(np.float32),
            max_episode_steps=2000 if seed % 2 else 1600,
        )
        > 0
    )


def test_sensor_kinematic_bullet_and_destroyed_fixture():
    twin = Twin()
    ground(twin)
    twin.body(static=True, position=(3.0, 1.0), fixtures=[dict(shape=("box", (1.0, 1.0)), isSensor=True)])
    twin.body(
        dynamic=False,
        position=(-3.0, 0.6),
        linearVelocity=(1.5, 0.0),
        angularVelocity=0.3,
        fixtures=[dict(shape=("box", (0.4, 0.4)))],
    )
    twin.body(
        position=(-6.0, 3.0),
        linearVelocity=(40.0, -30.0),
        bullet=True,
        fixtures=[dict(shape=("circle", 0.1, (0.0, 0.0)), density=1.0)],
    )
    twin.body(
        position=(0.0, 2.0),
        fixtures=[dict(shape=("box", (0.3, 0.3)), density=1.0), dict(shape=("circle", 0.3, (0.5, 0.0)), density=2.0)],
    )
    twin.body(position=(4.0, 5.0), linearVelocity=(0.0, -50.0), fixtures=[dict(shape=("box", (0.2, 0.2)), density=1.0)])
    twin.run(steps(60))
    twin.destroy_fixture(len(twin.fixtures) - 2)  # the circle of the two-fixture body: new mass data
    twin.run(steps(60))


@pytest.mark.parametrize("substepping", [False, True])
def test_static_bodies_advanced_by_toi_events(substepping):
    """SolveTOI advances a static body's sweep too (its alpha0, which later events of the same step start from): the
    port resets only the moving bodies and the static ones its events advanced (``WI_ADVANCED_LIST``), not every
    body. Two fast bodies a step hit the ground and four static platforms, the same platforms step after step; static
    bodies the last step advanced are destroyed now and then; with sub-stepping, a SolveTOI stops after each event
    and the next step's goes on without the reset."""
    twin = Twin(bodies=48)
    twin.ref.subStepping = substepping
    twin.w.world_i[0, W.WI_SUBSTEPPING] = int(substepping)
    ground(twin)
    for k in range(4):
        twin.body(static=True, position=(2.0 * k - 3.0, 2.0 + k), fixtures=[dict(shape=("box", (0.8, 0.05)))])
    advanced_seen = []
    destroyed = []
    period = max(1, steps(60) // 6)

    def dynamic_bodies():
        return [n for n, (_, port, _) in enumerate(twin.bodies) if twin.w.body_i[0, port, W.BI_TYPE] == W.DYNAMIC]

    def launch(t):
        chain = []
        b = twin.w.world_i[0, W.WI_ADVANCED_LIST]
        while b >= 0:
            chain.append(b)
            b = twin.w.body_i[0, b, W.BI_ADVANCED_NEXT]
        advanced_seen.append(len(chain))
        if chain and t >= period * (len(destroyed) + 1):
            # a static body the last step advanced leaves (off the chain before its row is reused); another comes
            i = next(n for n, (_, port, _) in enumerate(twin.bodies) if port == chain[-1])
            destroyed.append(t)
            twin.destroy(i)
            twin.body(static=True, position=(0.3 * t - 8.0, 3.5), fixtures=[dict(shape=("box", (0.9, 0.05)))])
        while len(dynamic_bodies()) > 6:
            twin.destroy(dynamic_bodies()[0])
        for k in range(2):
            column = (t + 2 * k) % 4
            twin.body(
                position=(2.0 * column - 3.0 + 0.05 * k + 0.013 * t, 3.0 + column + 0.37 * k),
                linearVelocity=(0.3 - 0.2 * k, -60.0 - 7.0 * k),
                fixtures=[dict(shape=("box", (0.08, 0.08)), density=1.0, restitution=0.2)],
            )

    twin.run(steps(60), launch)
    assert max(advanced_seen) >= 2  # the TOI events advanced static bodies, several a step
    assert len(destroyed) >= 4


def test_a_grown_world_hands_out_the_tree_nodes_of_one_made_large():
    """``world.grown`` appends the new tree nodes after the free list's (freed nodes first, as Box2D hands them out,
    then the never-used ones in order): a tree grown after proxies were destroyed gives the same proxy ids, nodes
    and AABBs as one that was large from the start (whose order is Box2D's growing tree's)."""
    from nbgym._box2d import dynamic_tree as tree

    small = W.new_world(1, proxies=8)
    large = W.grown(W.new_world(1, proxies=8), tree_nodes=64)
    assert W.capacities(small)["tree_nodes"] == 16
    rng = np.random.default_rng(0)
    boxes = [np.array([x, y, x + 0.5, y + 0.25], np.float32) for x, y in rng.uniform(0, 10, (30, 2))]
    ids = {}
    for name, w in (("small", small), ("large", large)):
        made = [tree.create_proxy(w.tree_f[0], w.tree_i[0], w.tree_s[0], box, k) for k, box in enumerate(boxes[:6])]
        for proxy in (made[1], made[4], made[3]):
            tree.destroy_proxy(w.tree_f[0], w.tree_i[0], w.tree_s[0], proxy)
        if name == "small":
            w = small = W.grown(w, tree_nodes=64)
        made += [tree.create_proxy(w.tree_f[0], w.tree_i[0], w.tree_s[0], box, k) for k, box in enumerate(boxes[6:])]
        ids[name] = made
    assert ids["small"] == ids["large"] and max(ids["large"]) >= 16
    np.testing.assert_array_equal(small.tree_i, large.tree_i)
    np.testing.assert_array_equal(small.tree_f, large.tree_f)
    np.testing.assert_array_equal(small.tree_s, large.tree_s)
