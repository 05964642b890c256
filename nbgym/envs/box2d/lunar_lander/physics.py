"""LunarLander's constants and compiled physics, which its single env (``lunar_lander.LunarLander``) and its vector
env (``lunar_lander.LunarLanderVectorEnv``) both run: each (sub-)environment's Box2D world is a row of the
compiled Box2D port (``nbgym._box2d``).

The physics is gymnasium 1.4.0's ``LunarLander.reset``/``step`` written against the port: the same Box2D calls in
the same order with the same float32 values, the same float64 arithmetic around them, and the same random draws
from each environment's stream. The port is bit for bit the ``box2d`` 2.3.10 wheel's physics, so observations,
rewards and flags are bit for bit gymnasium's. No ``box2d`` wheel is needed.

Flame particles: gymnasium's env creates them only when it renders (``render_mode`` set), as Box2D bodies that
collide with the moon, so they change the physics (contacts, broad-phase order, TOI). With the ``particles``
parameter set, the kernels create them exactly where and when gymnasium does; their ``ttl`` drops only when a
frame is drawn (``decay_particles``), so their number has no bound: the single env grows its world between
calls (``room_for_step``).
"""

from __future__ import annotations

import math
from collections import namedtuple
from typing import Any

import numpy as np

from nbgym import logger, spaces
from nbgym._box2d import broad_phase, shapes
from nbgym._box2d import world as W
from nbgym._box2d import world_step
from nbgym._box2d.columns import Columns
from nbgym._box2d.simd import LANES
from nbgym.engine import Physics, borrowing_njit, njit, rng

F32 = np.float32

FPS = 50
SCALE = 30.0
MAIN_ENGINE_POWER = 13.0
SIDE_ENGINE_POWER = 0.6
INITIAL_RANDOM = 1000.0
LANDER_POLY = ((-14, +17), (-17, 0), (-17, -10), (+17, -10), (+17, 0), (+14, +17))
LEG_AWAY = 20
LEG_DOWN = 18
LEG_W, LEG_H = 2, 8
LEG_SPRING_TORQUE = 40
SIDE_ENGINE_HEIGHT = 14
SIDE_ENGINE_AWAY = 12
MAIN_ENGINE_Y_LOCATION = 4
VIEWPORT_W = 600
VIEWPORT_H = 400
CHUNKS = 11
"""Terrain segments across the viewport."""
WIND_K = 0.01
"""The wind's and turbulence's frequency ``k`` in ``tanh(sin(2 k t) + sin(pi k t))``."""
LANDER_COLORS = ((128, 102, 230), (77, 77, 128))
PARTICLE_TTL_DECAY = 0.15
"""How much of its life a flame particle loses at each rendered frame."""
PARTICLE_RADIUS = 2 / SCALE

_W = VIEWPORT_W / SCALE
_H = VIEWPORT_H / SCALE
_HELIPAD_Y = _H / 4
_LANDER_POINTS = np.array([(x / SCALE, y / SCALE) for x, y in LANDER_POLY], dtype=np.float32)
_DT = F32(1.0 / FPS)
_VELOCITY_ITERATIONS = 6 * 30
_POSITION_ITERATIONS = 2 * 30

# Capacities of a world row: the moon (a static body with 11 edges), the lander and two legs, their two joints,
# and at most 3 x 11 contacts (only the lander's and the legs' fixtures collide, and only with the moon). Flame
# particles (one body and fixture each) collide with the moon only: at most 11 contacts each.
_BODIES = 4
_FIXTURES = 14
_MOON_EDGES = 11
_JOINTS = 2
_CONTACTS = 40
_PROXIES = 32  # the broad phase's pair buffer is 4 x this: room for every overlapping pair of the first step
_LANE_CONTACTS = 6  # the lander's and legs' contacts solved in vectors: each on 2 edges (a world on more steps alone)

# env_i columns: body indices in the world row, the wind's and turbulence's indices, whether they were drawn (at
# a reset with wind: gymnasium's env has no wind_idx before), and how many flame particles live.
_env_i = Columns()
LANDER = _env_i.add()
LEG_LEFT = _env_i.add()
LEG_RIGHT = _env_i.add()
MOON = _env_i.add()
WIND_IDX = _env_i.add()
TORQUE_IDX = _env_i.add()
WIND_DRAWN = _env_i.add()
PARTICLE_COUNT = _env_i.add()
HAS_PREV_SHAPING = _env_i.add()  # 0: gymnasium's prev_shaping is None (then PREV_SHAPING is not read)
_NEI = _env_i.end()
WIND_DRAWN_BIT, TORQUE_DRAWN_BIT = 1, 2  # WIND_DRAWN bits
WIND_AND_TORQUE_DRAWN = WIND_DRAWN_BIT | TORQUE_DRAWN_BIT
# env_f columns: the last shaping (if HAS_PREV_SHAPING), the helipad's height, the terrain's heights (smooth_y).
_env_f = Columns()
PREV_SHAPING = _env_f.add()
HELIPAD_Y = _env_f.add()
SMOOTH_Y = _env_f.add(CHUNKS)
M_POWER, S_POWER = _env_f.add_each(2)  # the engines' powers of the step under way (act to step)
_NEF = _env_f.end()

LanderRows = namedtuple("LanderRows", ["w", "env_i", "env_f", "particles", "ttl", "shape_i", "shape_f"])
"""The state of a batch of environments: their Box2D worlds (a ``World``, one row each), and per row the bodies'
indices and wind indices (``env_i``), the float64 values gymnasium keeps on the env (``env_f``), the living flame
particles' bodies, oldest first (``particles``), each body's ``ttl`` (a particle's remaining life), and the shape a
new particle's fixture is made from (``shape_i``, ``shape_f``: the step, which counts no references, allocates
nothing)."""


def new_rows(num_envs: int) -> LanderRows:
    """The state of ``num_envs`` environments before their first reset."""
    return LanderRows(
        W.new_world(
            num_envs,
            bodies=_BODIES,
            fixtures=_FIXTURES,
            joints=_JOINTS,
            contacts=_CONTACTS,
            proxies=_PROXIES,
            lane_contacts=_LANE_CONTACTS,
        ),
        np.zeros((num_envs, _NEI), np.int64),
        np.zeros((num_envs, _NEF), np.float64),
        np.zeros((num_envs, _BODIES), np.int32),
        np.zeros((num_envs, _BODIES), np.float64),
        *shapes.new_shapes(num_envs),
    )


def room_for_step(state: LanderRows, new_particles: int) -> LanderRows:
    """``state``, or a copy with larger rows if the next step or ``SetTransform`` of a body could run short:
    ``new_particles`` (a body, a fixture and a proxy each; a rendered env's step makes up to two) and the contacts
    and proxy moves all the bodies may make; the pair buffer grows to the most pairs a step has found (a step that
    finds more takes its pairs in batches: see ``broad_phase.update_pairs``), as Box2D's doubles when full, rather
    than to every moved proxy times every proxy (quadratic in the particles).

    Box2D's allocators and buffers grow as they fill; the port's rows are fixed, so this grows them first (see
    ``world.grown``: the same worlds, stepping to the same floats).
    """
    w = state.w
    have = W.capacities(w)
    particles = int(state.env_i[:, PARTICLE_COUNT].max())
    bodies = _BODIES + particles + new_particles
    fixtures = _FIXTURES + particles + new_particles
    dynamic_proxies = fixtures - _MOON_EDGES
    proxies = fixtures
    moves = (
        int(w.bp_i[:, broad_phase.MOVE_COUNT].max()) + dynamic_proxies
    )  # the moves buffered before the step (new proxies'), then Solve's
    need = {
        "bodies": bodies,
        "fixtures": fixtures,
        "contacts": _MOON_EDGES * dynamic_proxies,
        "tree_nodes": 2 * proxies,
        "moves": moves,
        "pairs": int(w.bp_i[:, broad_phase.PAIR_COUNT].max()),
    }
    short = {name: max(2 * have[name], size) for name, size in need.items() if have[name] < size}
    if not short:
        return state
    grown = W.grown(w, **short)
    size = grown.body_i.shape[1]
    particles_rows = np.zeros((w.world_i.shape[0], size), np.int32)
    particles_rows[:, : state.particles.shape[1]] = state.particles
    ttl = np.zeros((w.world_i.shape[0], size), np.float64)
    ttl[:, : state.ttl.shape[1]] = state.ttl
    return LanderRows(
        grown, state.env_i.copy(), state.env_f.copy(), particles_rows, ttl, state.shape_i.copy(), state.shape_f.copy()
    )


@borrowing_njit
def _fixture(w, i, b, si, sf, density, friction, restitution, category, mask):
    return W.create_fixture(w, i, b, si, sf, F32(density), F32(friction), F32(restitution), category, mask, 0, False)


@borrowing_njit
def check_world(w, i):
    """Raises if a capacity of world row ``i`` ran out (the port then created nothing, and stepping on would be
    wrong): the engine turns it into a step or reset that needs a reset."""
    if w.world_i[i, W.WI_ERROR] != 0:
        W.raise_capacity_error(w, i)


@njit
def _create_particle(state, i, mass, x, y, ttl):
    """gymnasium's ``_create_particle``: a dynamic circle at ``(x, y)`` that collides with the moon only, queued
    with its ``ttl``, then ``_clean_particles(False)``. Returns its body."""
    w = state.w
    b = W.create_default_body(w, i, W.DYNAMIC, x, y, 0.0)
    check_world(w, i)
    si = state.shape_i[i]
    sf = state.shape_f[i]
    shapes.circle_set(si, sf, F32(PARTICLE_RADIUS), F32(0.0), F32(0.0))
    _fixture(w, i, b, si, sf, mass, 0.1, 0.3, 0x0100, 0x001)
    check_world(w, i)
    state.ttl[i, b] = ttl
    count = state.env_i[i, PARTICLE_COUNT]
    state.particles[i, count] = b  # room: a particle is a body, and the particles row holds one per body
    state.env_i[i, PARTICLE_COUNT] = count + 1
    clean_particles(state, i, False)
    return b


@njit
def clean_particles(state, i, every):
    """gymnasium's ``_clean_particles``: destroys the oldest particles while their ``ttl`` is below 0 (all of
    them if ``every``)."""
    count = state.env_i[i, PARTICLE_COUNT]
    gone = 0
    while gone < count and (every or state.ttl[i, state.particles[i, gone]] < 0.0):
        world_step.destroy_body(state.w, i, state.particles[i, gone])
        gone += 1
    for k in range(gone, count):
        state.particles[i, k - gone] = state.particles[i, k]
    state.env_i[i, PARTICLE_COUNT] = count - gone


@njit(entry=True)
def decay_particles(state, i):
    """What gymnasium's ``render`` does to the particles before drawing: each loses ``PARTICLE_TTL_DECAY`` of its
    life, then the expired ones at the front of the queue are destroyed."""
    for k in range(state.env_i[i, PARTICLE_COUNT]):
        b = state.particles[i, k]
        state.ttl[i, b] -= PARTICLE_TTL_DECAY
    clean_particles(state, i, False)


def _reset(params, state, i, stream, aux):
    """gymnasium's ``reset``: a new world, terrain, lander and legs, the random push, then ``step(0)``."""
    w = state.w
    W.reset_world(w, i, F32(0.0), F32(params.gravity))
    w.world_i[i, W.WI_LISTENER] = 1
    state.env_i[i, HAS_PREV_SHAPING] = 0  # gymnasium's prev_shaping = None
    state.env_f[i, HELIPAD_Y] = _HELIPAD_Y
    state.env_i[i, PARTICLE_COUNT] = 0  # gymnasium's _destroy: the particles went with the old world

    heights = np.empty(CHUNKS + 1)
    for k in range(CHUNKS + 1):
        heights[k] = rng.uniform(stream, i, 0.0, _H / 2)
    for k in range(CHUNKS // 2 - 2, CHUNKS // 2 + 3):
        heights[k] = _HELIPAD_Y
    for k in range(CHUNKS):
        state.env_f[i, SMOOTH_Y + k] = 0.33 * (heights[k - 1] + heights[k] + heights[k + 1])

    si = np.zeros(shapes.SHAPE_INTS, np.int32)
    sf = np.zeros((shapes.SHAPE_ROWS, 2), np.float32)
    moon = W.create_default_body(w, i, W.STATIC, 0.0, 0.0, 0.0)
    shapes.edge_set(si, sf, F32(0.0), F32(0.0), F32(_W), F32(0.0))
    _fixture(w, i, moon, si, sf, 0.0, 0.2, 0.0, 0x0001, 0xFFFF)  # pybox2d's default b2FixtureDef
    for k in range(CHUNKS - 1):
        shapes.edge_set(
            si,
            sf,
            F32(_W / (CHUNKS - 1) * k),
            F32(state.env_f[i, SMOOTH_Y + k]),
            F32(_W / (CHUNKS - 1) * (k + 1)),
            F32(state.env_f[i, SMOOTH_Y + k + 1]),
        )
        _fixture(w, i, moon, si, sf, 0.0, 0.1, 0.0, 0x0001, 0xFFFF)

    initial_x = VIEWPORT_W / SCALE / 2
    initial_y = VIEWPORT_H / SCALE
    lander = W.create_default_body(w, i, W.DYNAMIC, initial_x, initial_y, 0.0)
    shapes.polygon_set(si, sf, _LANDER_POINTS, len(LANDER_POLY))
    _fixture(w, i, lander, si, sf, 5.0, 0.1, 0.0, 0x0010, 0x001)
    push_x = rng.uniform(stream, i, -INITIAL_RANDOM, INITIAL_RANDOM)
    push_y = rng.uniform(stream, i, -INITIAL_RANDOM, INITIAL_RANDOM)
    W.apply_force_to_center(w, i, lander, F32(push_x), F32(push_y), True)
    if params.enable_wind:
        state.env_i[i, WIND_IDX] = rng.integers(stream, i, -9999, 9999)
        state.env_i[i, TORQUE_IDX] = rng.integers(stream, i, -9999, 9999)
        state.env_i[i, WIND_DRAWN] = WIND_AND_TORQUE_DRAWN

    for side in (-1, 1):
        leg = W.create_default_body(w, i, W.DYNAMIC, initial_x - side * LEG_AWAY / SCALE, initial_y, side * 0.05)
        shapes.polygon_set_as_box(si, sf, F32(LEG_W / SCALE), F32(LEG_H / SCALE))
        _fixture(w, i, leg, si, sf, 1.0, 0.2, 0.0, 0x0020, 0x001)
        if side == -1:
            lower, upper = +0.9 - 0.5, +0.9
        else:
            lower, upper = -0.9, -0.9 + 0.5
        # pybox2d's revoluteJointDef(bodyA=..., bodyB=...) sets referenceAngle = bodyB.angle - bodyA.angle (in Python).
        reference = np.float64(w.body_f[i, leg, W.BF_A]) - np.float64(w.body_f[i, lander, W.BF_A])
        W.create_revolute_joint(
            w,
            i,
            lander,
            leg,
            F32(0.0),
            F32(0.0),
            F32(side * LEG_AWAY / SCALE),
            F32(LEG_DOWN / SCALE),
            F32(reference),
            F32(lower),
            F32(upper),
            F32(LEG_SPRING_TORQUE),
            F32(0.3 * side),
            True,
            True,
            False,
        )
        state.env_i[i, LEG_LEFT if side == -1 else LEG_RIGHT] = leg
    state.env_i[i, LANDER] = lander
    state.env_i[i, MOON] = moon
    check_world(w, i)
    # gymnasium's reset returns step(0)'s observation
    _fire_engines(params, state, i, stream, 0.0, 0.0, 0.0)
    world_step.step(w, i, _DT, _VELOCITY_ITERATIONS, _POSITION_ITERATIONS)
    _reward(state, i, 0.0, 0.0)


@njit
def _touching(w, i, body):
    return w.body_i[i, body, W.BI_TOUCH] != 0


@njit
def _turbulence(index, power):
    """gymnasium's wind and turbulence: ``tanh(sin(2 k x) + sin(pi k x)) * power`` with k = ``WIND_K``."""
    return math.tanh(math.sin(2 * WIND_K * index) + math.sin(math.pi * WIND_K * index)) * power


@njit
def _throw_particle(state, i, ox, oy, ix, iy, engine_power, throttle, mass):
    """The start of gymnasium's ``_fire`` in a rendered env: a flame particle of ``mass``, living ``throttle``, made at
    ``(ix, iy)`` and pushed by the impulse ``(ox, oy) * engine_power * throttle``, away from the lander."""
    particle = _create_particle(state, i, mass, ix, iy, throttle)
    W.apply_linear_impulse(
        state.w,
        i,
        particle,
        F32(ox * engine_power * throttle),
        F32(oy * engine_power * throttle),
        F32(ix),
        F32(iy),
        True,
    )


@njit
def _fire(w, i, lander, ox, oy, ix, iy, engine_power, throttle):
    """The rest of gymnasium's ``_fire``: the impulse ``-(ox, oy) * engine_power * throttle`` on the lander at
    ``(ix, iy)``. (Small enough for LLVM to inline, which then drops the reference counts of ``w``'s arrays.)"""
    W.apply_linear_impulse(
        w, i, lander, F32(-ox * engine_power * throttle), F32(-oy * engine_power * throttle), F32(ix), F32(iy), True
    )


@njit
def _state(state, i):
    """gymnasium's ``state`` list (float64) of the lander after a step."""
    w = state.w
    lander = state.env_i[i, LANDER]
    bf = w.body_f[i, lander]
    s0 = (np.float64(bf[W.BF_PX]) - VIEWPORT_W / SCALE / 2) / (VIEWPORT_W / SCALE / 2)
    s1 = (np.float64(bf[W.BF_PY]) - (state.env_f[i, HELIPAD_Y] + LEG_DOWN / SCALE)) / (VIEWPORT_H / SCALE / 2)
    s2 = np.float64(bf[W.BF_VX]) * (VIEWPORT_W / SCALE / 2) / FPS
    s3 = np.float64(bf[W.BF_VY]) * (VIEWPORT_H / SCALE / 2) / FPS
    s4 = np.float64(bf[W.BF_A])
    s5 = 20.0 * np.float64(bf[W.BF_W]) / FPS
    s6 = 1.0 if _touching(w, i, state.env_i[i, LEG_LEFT]) else 0.0
    s7 = 1.0 if _touching(w, i, state.env_i[i, LEG_RIGHT]) else 0.0
    return s0, s1, s2, s3, s4, s5, s6, s7


def _act(params, state, i, actions, stream, aux):
    m_power = 0.0
    s_power = 0.0
    side_reach = 0.0
    # One shape for Discrete's (n,) and Box's (n, 2) actions, so that both branches compile for either.
    rows = actions.reshape((actions.shape[0], -1))
    if params.continuous:
        main = _clip_unit(np.float64(rows[i, 0]))
        lateral = _clip_unit(np.float64(rows[i, 1]))
        if main > 0.0:
            m_power = (main + 1.0) * 0.5
        if abs(lateral) > 0.5:
            direction = 1.0 if lateral > 0.0 else -1.0
            side_reach = direction * SIDE_ENGINE_AWAY / SCALE
            s_power = abs(lateral)
    else:
        action = rows[i, 0]
        if action == 2:
            m_power = 1.0
        elif action == 1:
            s_power = 1.0
            side_reach = params._left_reach
        elif action == 3:
            s_power = 1.0
            side_reach = 1 * SIDE_ENGINE_AWAY / SCALE
    state.env_f[i, M_POWER] = m_power
    state.env_f[i, S_POWER] = s_power
    _fire_engines(params, state, i, stream, m_power, s_power, side_reach)


def _advance(params, state, first, stop, resting):
    """One Box2D step of each world that moves, their joints' velocity iterations side by side."""
    world_step.step_rows(state.w, first, stop, resting, _DT, _VELOCITY_ITERATIONS, _POSITION_ITERATIONS)


def _step(params, state, i, actions, stream, aux):
    return _reward(state, i, state.env_f[i, M_POWER], state.env_f[i, S_POWER])


@borrowing_njit
def _fire_engines(params, state, i, stream, m_power, s_power, side_reach):
    """gymnasium's ``step`` once the action is read, up to the Box2D step: wind, the engines' impulses (``m_power``
    of the main engine, ``s_power`` of the side engine, which sits ``side_reach``, gymnasium's
    ``direction * SIDE_ENGINE_AWAY / SCALE``, from the centre).

    One function with the lander's impulses written in, compiled without reference counting (it borrows ``state``'s
    arrays from the kernel, as ``step`` and ``observe`` do: ``borrows_state``), as ``_reward``. A compiled call that
    counts references counts one to each array of ``state`` (the world's 42 among them) in and out, an atomic
    operation each: such calls were a seventh of a 16-env step. It allocates nothing: a new particle's shape is made
    in ``state.shape_i``/``shape_f``."""
    w = state.w
    lander = state.env_i[i, LANDER]
    if params.enable_wind and not (
        _touching(w, i, state.env_i[i, LEG_LEFT]) or _touching(w, i, state.env_i[i, LEG_RIGHT])
    ):
        if state.env_i[i, WIND_DRAWN] != WIND_AND_TORQUE_DRAWN:  # the envs refuse it before calling
            raise AttributeError("'LunarLander' object has no attribute 'wind_idx' (or 'torque_idx')")
        wind_mag = _turbulence(state.env_i[i, WIND_IDX], params.wind_power)
        state.env_i[i, WIND_IDX] += 1
        W.apply_force_to_center(w, i, lander, F32(wind_mag), F32(0.0), True)
        torque_mag = _turbulence(state.env_i[i, TORQUE_IDX], params.turbulence_power)
        state.env_i[i, TORQUE_IDX] += 1
        W.apply_torque(w, i, lander, F32(torque_mag), True)

    angle = np.float64(w.body_f[i, lander, W.BF_A])
    tip_x = math.sin(angle)
    tip_y = math.cos(angle)
    side_x = -tip_y
    side_y = tip_x
    dispersion0 = rng.uniform(stream, i, -1.0, 1.0) / SCALE
    dispersion1 = rng.uniform(stream, i, -1.0, 1.0) / SCALE
    px = np.float64(w.body_f[i, lander, W.BF_PX])
    py = np.float64(w.body_f[i, lander, W.BF_PY])
    if m_power != 0.0:
        reach = MAIN_ENGINE_Y_LOCATION / SCALE + 2 * dispersion0
        ox = tip_x * reach + side_x * dispersion1
        oy = -tip_y * reach - side_y * dispersion1
        ix = px + ox
        iy = py + oy
        if params._with_particles:
            _throw_particle(state, i, ox, oy, ix, iy, MAIN_ENGINE_POWER, m_power, 3.5)
        _fire(w, i, lander, ox, oy, ix, iy, MAIN_ENGINE_POWER, m_power)
    if s_power != 0.0:
        lever = 3 * dispersion1 + side_reach
        ox = tip_x * dispersion0 + side_x * lever
        oy = -tip_y * dispersion0 - side_y * lever
        # (The main engine's impulse changed velocities only: the position is the one read above.)
        ix = px + ox - tip_x * 17 / SCALE
        iy = py + oy + tip_y * SIDE_ENGINE_HEIGHT / SCALE
        if params._with_particles:
            _throw_particle(state, i, ox, oy, ix, iy, SIDE_ENGINE_POWER, s_power, 0.7)
        _fire(w, i, lander, ox, oy, ix, iy, SIDE_ENGINE_POWER, s_power)


@borrowing_njit
def _reward(state, i, m_power, s_power):
    """gymnasium's ``step`` after the Box2D step: the reward and whether it terminated."""
    w = state.w
    lander = state.env_i[i, LANDER]
    if w.world_i[i, W.WI_ERROR] != 0:  # check_world, without its call (see _fire_engines)
        W.raise_capacity_error(w, i)
    s0, s1, s2, s3, s4, s5, s6, s7 = _state(state, i)
    shaping = (
        -100 * math.sqrt(s0 * s0 + s1 * s1) - 100 * math.sqrt(s2 * s2 + s3 * s3) - 100 * abs(s4) + 10 * s6 + 10 * s7
    )
    # a flag, not NaN, for gymnasium's None: a NaN shaping (of a NaN state) makes the next reward NaN, as there
    reward = shaping - state.env_f[i, PREV_SHAPING] if state.env_i[i, HAS_PREV_SHAPING] != 0 else 0.0
    state.env_f[i, PREV_SHAPING] = shaping
    state.env_i[i, HAS_PREV_SHAPING] = 1
    reward -= m_power * 0.30
    reward -= s_power * 0.03

    terminated = False
    if w.body_i[i, lander, W.BI_BEGUN] != 0 or abs(s0) >= 1.0:  # game_over: the lander touched the moon
        terminated = True
        reward = -100.0
    if (w.body_i[i, lander, W.BI_FLAGS] & W.AWAKE_FLAG) == 0:
        terminated = True
        reward = 100.0
    return reward, terminated


@njit
def _clip_unit(x):
    """``np.clip(x, -1, 1)`` (a NaN stays NaN, and fires no engine)."""
    if x < -1.0:
        return -1.0
    if x > 1.0:
        return 1.0
    return x


def _observe(params, state, i, obs):
    s0, s1, s2, s3, s4, s5, s6, s7 = _state(state, i)
    obs[i, 0] = np.float32(s0)
    obs[i, 1] = np.float32(s1)
    obs[i, 2] = np.float32(s2)
    obs[i, 3] = np.float32(s3)
    obs[i, 4] = np.float32(s4)
    obs[i, 5] = np.float32(s5)
    obs[i, 6] = np.float32(s6)
    obs[i, 7] = np.float32(s7)


def _action_valid(params, actions, i):
    if params.continuous:
        return True  # gymnasium clips throttles into [-1, 1]; a NaN throttle fires nothing
    action = actions.reshape((actions.shape[0], -1))[i, 0]
    return 0 <= action < 4


_DISCRETE_ACTIONS = spaces.Discrete(4)


def _read_action(params: Any, action: Any) -> Any:
    """gymnasium's reading of an action: the throttles ``np.clip(action, -1, +1).astype(np.float64)``, whose
    ``[0] > 0.0`` and ``abs([1]) > 0.5`` decide which engines fire; a discrete action asserted in ``Discrete(4)``.

    Returns:
        The continuous action's throttles (float64, at least two), or the discrete action as given.
    """
    if not params.continuous:
        if not _DISCRETE_ACTIONS.contains(action):
            raise AssertionError(f"{action!r} ({type(action)}) invalid ")
        return action
    throttles = np.clip(action, -1, +1).astype(np.float64)
    bool(throttles[0] > 0.0)
    bool(np.abs(throttles[1]) > 0.5)
    return throttles


PHYSICS = Physics(
    "LunarLander",
    params=[
        ("continuous", np.bool_),
        ("gravity", np.float64),
        ("enable_wind", np.bool_),
        ("wind_power", np.float64),
        ("turbulence_power", np.float64),
        ("_left_reach", np.float64),
        ("_with_particles", np.bool_),
    ],
    state=new_rows,
    reset=_reset,
    act=_act,
    advance=_advance,
    step=_step,
    observe=_observe,
    action_valid=_action_valid,
    read_action=_read_action,
    max_chunk_size=LANES,
    borrows_state=True,
)


def _continuous(env: Any) -> bool:
    """Whether the engines are throttled (``Box(-1, 1, (2,))`` actions) rather than on/off (``Discrete(4)``)."""
    return bool(env._params["continuous"][0])


def _refuse_continuous(env: Any, value: Any) -> None:
    # The action space, the action buffers and the kernels' reading of an action follow it: changing it would have
    # the kernels read Discrete actions as throttles (gymnasium's env then fails at its next step).
    raise AttributeError(
        f"continuous is fixed when the env is made (its action space follows it): make another one with "
        f"continuous={bool(value)!r}, e.g. nbgym.make('LunarLander-v3', continuous={bool(value)!r})."
    )


CONTINUOUS = property(_continuous, _refuse_continuous, doc=_continuous.__doc__)
"""The ``continuous`` attribute of LunarLander's envs (a class attribute of each: the engine would otherwise make
the parameter an assignable attribute)."""


def check_arguments(gravity: float, wind_power: float, turbulence_power: float) -> None:
    """gymnasium's constructor checks: an assertion on ``gravity``, warnings on the wind's powers.

    Raises:
        AssertionError: ``gravity`` is not strictly between -12 and 0.
    """
    assert -12.0 < gravity and gravity < 0.0, f"gravity (current value: {gravity}) must be between -12 and 0"
    if 0.0 > wind_power or wind_power > 20.0:
        logger.warn(f"wind_power value is recommended to be between 0.0 and 20.0, (current value: {wind_power})")
    if 0.0 > turbulence_power or turbulence_power > 2.0:
        logger.warn(
            f"turbulence_power value is recommended to be between 0.0 and 2.0, (current value: {turbulence_power})"
        )


def new_params(
    continuous: bool,
    gravity: float,
    enable_wind: bool,
    wind_power: float,
    turbulence_power: float,
    with_particles: bool,
) -> np.ndarray:
    """The physics' parameter record of an env with these arguments (``with_particles``: it renders)."""
    return PHYSICS.new_params(
        continuous=continuous,
        gravity=gravity,
        enable_wind=enable_wind,
        wind_power=wind_power,
        turbulence_power=turbulence_power,
        _left_reach=left_reach(np.dtype(np.int64)),
        _with_particles=with_particles,
    )


def observation_and_action_spaces(continuous: bool) -> tuple[spaces.Box, spaces.Space]:
    """gymnasium's spaces: x, y, vx, vy, angle, angular velocity and two leg contacts; ``Discrete(4)`` engines or
    ``Box(-1, 1, (2,))`` throttles."""
    low = np.array([-2.5, -2.5, -10.0, -10.0, -2 * math.pi, -10.0, -0.0, -0.0]).astype(np.float32)
    high = np.array([2.5, 2.5, 10.0, 10.0, 2 * math.pi, 10.0, 1.0, 1.0]).astype(np.float32)
    action_space = spaces.Box(-1, +1, (2,), dtype=np.float32) if continuous else spaces.Discrete(4)
    return spaces.Box(low, high), action_space


def note_action_dtype(params: np.ndarray, dtype: np.dtype) -> None:
    """Sets the left engine's lever for discrete actions of ``dtype`` (see ``left_reach``)."""
    reach = left_reach(dtype) if dtype.kind == "u" and dtype.itemsize < 8 else -SIDE_ENGINE_AWAY / SCALE
    if params["_left_reach"][0] != reach:
        params["_left_reach"] = reach


def refuse_undrawn_wind(params: np.ndarray, state: LanderRows, rows: np.ndarray) -> None:
    """Raises gymnasium's ``AttributeError`` when wind blows (``enable_wind`` set after a reset without it) on one
    of ``rows`` whose wind was never drawn: gymnasium's env has no ``wind_idx`` then. Nothing has moved.

    Raises:
        AttributeError: As gymnasium's ``step``, saying how to get wind.
    """
    if not params["enable_wind"][0]:
        return
    undrawn = rows & (state.env_i[:, WIND_DRAWN] != WIND_AND_TORQUE_DRAWN)
    w = state.w
    for row in np.flatnonzero(undrawn):
        drawn = state.env_i[row, WIND_DRAWN]
        legs = (state.env_i[row, LEG_LEFT], state.env_i[row, LEG_RIGHT])
        if not any(w.body_i[row, leg, W.BI_TOUCH] for leg in legs):
            name = "torque_idx" if drawn & WIND_DRAWN_BIT else "wind_idx"
            raise AttributeError(
                f"'LunarLander' object has no attribute {name!r} (as in gymnasium: enable_wind was set after a "
                "reset without wind, whose offsets were not drawn; reset() draws them)"
            )


def left_reach(dtype: np.dtype) -> float:
    """gymnasium's ``direction * SIDE_ENGINE_AWAY / SCALE`` for the left engine (action 1) of an action of
    ``dtype``: ``direction = action - 2`` and its product are computed in that dtype, so an unsigned action
    wraps around (``np.uint32(1) - 2`` is 4294967295) and fires the left engine with that lever."""
    with np.errstate(over="ignore"):
        return float((dtype.type(1) - 2) * SIDE_ENGINE_AWAY / SCALE)
