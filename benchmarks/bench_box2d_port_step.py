"""``b2World::Step`` alone: the compiled Box2D port (nbgym/_box2d) against the box2d 2.3.10 wheel.

Builds LunarLander-v3 worlds as gymnasium's ``reset`` does (terrain, lander with its random push, legs
with their motors and limits), one wheel ``b2World`` each and one row each of a port ``World`` (copied
from the wheel's, so both simulate the same world, bit for bit), then times ``Step(1/50, 180, 60)``
over a whole fall and landing: the wheel's ``world.Step`` called from Python per world, against one
compiled call that steps every row. Wheel and port are timed in alternation in one process::

    python benchmarks/bench_box2d_port_step.py --worlds 1 16 --steps 200 --repeats 5
"""

from __future__ import annotations

import argparse
import time

import Box2D
import numpy as np
from gymnasium.envs.box2d import lunar_lander as ll

from nbgym._box2d import wheel
from nbgym._box2d import world as W
from nbgym._box2d import world_step as S

DT = 1.0 / ll.FPS


def lunar_lander_world(seed: int) -> tuple[Box2D.b2World, list[tuple[Box2D.b2Body, str]], list]:
    """A wheel world built by the calls of gymnasium 1.4.0's ``LunarLander.reset`` (no wind)."""
    rng = np.random.default_rng(seed)
    world = Box2D.b2World(gravity=(0, -10.0))
    created: list = []  # ("body", body) / ("joint", jointdef, bodyA, bodyB) in call order
    W_, H = ll.VIEWPORT_W / ll.SCALE, ll.VIEWPORT_H / ll.SCALE
    chunks = 11
    height = rng.uniform(0, H / 2, size=(chunks + 1,))
    chunk_x = [W_ / (chunks - 1) * i for i in range(chunks)]
    helipad_y = H / 4
    for k in range(-2, 3):
        height[chunks // 2 + k] = helipad_y
    smooth_y = [0.33 * (height[i - 1] + height[i + 0] + height[i + 1]) for i in range(chunks)]
    moon = world.CreateStaticBody(shapes=Box2D.b2EdgeShape(vertices=[(0, 0), (W_, 0)]))
    for i in range(chunks - 1):
        moon.CreateEdgeFixture(vertices=[(chunk_x[i], smooth_y[i]), (chunk_x[i + 1], smooth_y[i + 1])], density=0,
                               friction=0.1)
    created.append(("body", moon))
    x0, y0 = ll.VIEWPORT_W / ll.SCALE / 2, ll.VIEWPORT_H / ll.SCALE
    lander = world.CreateDynamicBody(position=(x0, y0), angle=0.0, fixtures=Box2D.b2FixtureDef(
        shape=Box2D.b2PolygonShape(vertices=[(x / ll.SCALE, y / ll.SCALE) for x, y in ll.LANDER_POLY]),
        density=5.0, friction=0.1, categoryBits=0x0010, maskBits=0x001, restitution=0.0))
    created.append(("body", lander))
    force = (rng.uniform(-ll.INITIAL_RANDOM, ll.INITIAL_RANDOM), rng.uniform(-ll.INITIAL_RANDOM, ll.INITIAL_RANDOM))
    created.append(("force", lander, force))
    lander.ApplyForceToCenter(force, True)
    for i in (-1, +1):
        leg = world.CreateDynamicBody(position=(x0 - i * ll.LEG_AWAY / ll.SCALE, y0), angle=i * 0.05,
                                      fixtures=Box2D.b2FixtureDef(
                                          shape=Box2D.b2PolygonShape(box=(ll.LEG_W / ll.SCALE, ll.LEG_H / ll.SCALE)),
                                          density=1.0, restitution=0.0, categoryBits=0x0020, maskBits=0x001))
        created.append(("body", leg))
        rjd = Box2D.b2RevoluteJointDef(bodyA=lander, bodyB=leg, localAnchorA=(0, 0),
                                       localAnchorB=(i * ll.LEG_AWAY / ll.SCALE, ll.LEG_DOWN / ll.SCALE),
                                       enableMotor=True, enableLimit=True, maxMotorTorque=ll.LEG_SPRING_TORQUE,
                                       motorSpeed=+0.3 * i)
        rjd.lowerAngle, rjd.upperAngle = (0.9 - 0.5, 0.9) if i == -1 else (-0.9, -0.9 + 0.5)
        world.CreateJoint(rjd)
        created.append(("joint", rjd, lander, leg))
    return world, created


def port_rows(calls: list[list]) -> tuple[W.World, list[list]]:
    """A port World whose row ``r`` replays the creation calls of wheel world ``r``, and per row the pairs
    (wheel body, port body)."""
    w = W.new_world(len(calls), bodies=8, fixtures=16, joints=4, contacts=32)
    pairs = []
    for r, created in enumerate(calls):
        index = {}
        pairs.append([(item[1], None) for item in created if item[0] == "body"])
        for item in created:
            if item[0] == "body":
                index[int(item[1].this)] = wheel.mirror_body(w, r, item[1])
            elif item[0] == "force":
                W.apply_force_to_center(w, r, index[int(item[1].this)], np.float32(item[2][0]),
                                        np.float32(item[2][1]), True)
            else:
                wheel.mirror_revolute_joint(w, r, item[1], index[int(item[2].this)], index[int(item[3].this)])
        pairs[r] = [(body, index[int(body.this)]) for body, _ in pairs[r]]
    return w, pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, nargs="+", default=[1, 16])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    dt32 = np.float32(DT)
    for n in args.worlds:
        wheel_best = port_best = float("inf")
        for rep in range(args.repeats):
            built = [lunar_lander_world(1000 * rep + k) for k in range(n)]
            worlds = [b[0] for b in built]
            w, pairs = port_rows([b[1] for b in built])
            S.step_rows(w, dt32, 180, 60)  # compiled (or loaded) before timing
            for world in worlds:
                world.Step(DT, 180, 60)
            t0 = time.perf_counter()
            for _ in range(args.steps):
                for world in worlds:
                    world.Step(DT, 180, 60)
            t1 = time.perf_counter()
            for _ in range(args.steps):
                S.step_rows(w, dt32, 180, 60)
            t2 = time.perf_counter()
            exact = all(
                (np.float32(body.position[0]), np.float32(body.position[1]), np.float32(body.angle))
                == (w.body_f[r, b, W.BF_PX], w.body_f[r, b, W.BF_PY], w.body_f[r, b, W.BF_A])
                for r in range(n) for body, b in pairs[r]) and not w.world_i[:, W.WI_ERROR].any()
            wheel_best = min(wheel_best, t1 - t0)
            port_best = min(port_best, t2 - t1)
        per = n * args.steps
        print(f"{n:5d} worlds: wheel {wheel_best / per * 1e6:8.2f} us/step  port {port_best / per * 1e6:8.2f} us/step"
              f"  ratio {wheel_best / port_best:5.2f}x  (same positions: {exact})")


if __name__ == "__main__":
    main()
