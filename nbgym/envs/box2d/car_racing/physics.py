"""CarRacing's physics on the compiled Box2D port: the track, the car and the game, one row per sub-environment.

gymnasium 1.4.0's ``CarRacing.reset``/``step`` and ``car_dynamics.Car`` written against ``nbgym._box2d``: the
same Box2D calls in the same order with the same float32 values, the same float64 arithmetic around them in
gymnasium's order, and the same random draws from each sub-environment's PCG64 stream (the track's checkpoints
with their retries, the ``domain_randomize`` colours). A sub-environment keeps its world for its whole life, as
gymnasium's env does: a reset destroys the old tiles and the car in gymnasium's order, so the broad-phase tree
reuses the freed nodes as Box2D's does.

The tiles are static sensor bodies. gymnasium's ``FrictionDetector`` acts on BeginContact/EndContact; here the
port's listener records those events in order during ``Step`` (``LISTEN_EVENTS``) and ``_contact_events``
replays gymnasium's callback on them after ``Step``: the callback changes no physics, so the rewards, visited
tiles, wheels' tiles and tile colours come out the same.

What the renderer reads is kept here too: ``road_poly`` (vertices and live colours: a tile's colour becomes
the road colour when anything touches it, as gymnasium's ``tile.color[:] = road_color`` does), the wheels'
phases and the skid particles (gymnasium's ``Car.particles``, at most 30 of up to 30 points each).

Nothing here draws pixels; the observation comes from the rasteriser. Where what gymnasium's ``_render`` reads
lives, for row ``i`` (``w = state.w``):

- ``car.hull.position``/``angle``/``linearVelocity``/``angularVelocity``: ``w.body_f[i, env_i[i, HULL]]`` at
  ``W.BF_PX``, ``BF_PY``, ``BF_A``, ``BF_VX``, ``BF_VY``, ``BF_W`` (float32); the wheels' at ``env_i[i, WHEELS + k]``;
  a body's transform ``[p.x, p.y, sin, cos]`` at ``W.BF_XF``.
- ``car.wheels[k].omega``/``phase``: ``env_f[i, OMEGA + k]``/``PHASE + k``; ``wheels[0].joint.angle``:
  ``revolute_joint.joint_angle(w, i, env_i[i, JOINTS])`` (float32); ``self.t``, ``self.reward``: ``env_f[i, T]``,
  ``env_f[i, REWARD]``; the reward the step's frame shows (gymnasium renders before subtracting the step's 0.1):
  ``env_f[i, SHOWN_REWARD]``.
- ``obj.fixtures`` of ``Car.draw`` (pybox2d lists them in creation order): the body's Box2D fixture list
  (``w.body_i[i, b, W.BI_FIXTURES]`` along ``W.FI_NEXT``, newest first) reversed; a fixture's
  ``shape.vertices``: ``w.shape_f[i, f, shapes.VERTICES:shapes.VERTICES + w.shape_i[i, f, shapes.COUNT]]``.
- ``len(self.track)`` (the rewards' and the lap's tile count; a reset sets it to the tiles', a user may shorten
  gymnasium's list): ``env_i[i, TRACK_LENGTH]``; ``len(self.road)``: ``env_i[i, TILE_COUNT]``.
- ``road_poly``: ``poly_xy[i, :env_i[i, POLY_COUNT]]``, ``poly_color[i, ...]``; ``bg_color``/``grass_color``:
  ``env_f[i, BG_COLOR:BG_COLOR + 3]``/``GRASS_COLOR``; ``car.particles``: slots ``s % PARTICLES`` for
  ``s`` in ``range(max(0, made - PARTICLES), made)``, ``made = env_i[i, PARTICLES_MADE]``, oldest first.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from nbgym._box2d import revolute_joint, shapes
from nbgym._box2d import world as W
from nbgym._box2d import world_step
from nbgym._box2d.columns import Columns
from nbgym.engine import borrowing_njit, njit, rng

__all__ = [
    "CarRows",
    "PARAMS",
    "advance",
    "apply_continuous",
    "apply_discrete",
    "car_brake",
    "car_gas",
    "car_steer",
    "create_row",
    "draw_colors",
    "new_params",
    "new_rows",
    "reset_row",
    "reset_rows",
    "step_row",
    "step_rows",
]

F32 = np.float32

# gymnasium's car_racing.py
SCALE = 6.0
TRACK_RAD = 900 / SCALE
PLAYFIELD = 2000 / SCALE
FPS = 50
TRACK_DETAIL_STEP = 21 / SCALE
TRACK_TURN_RATE = 0.31
TRACK_WIDTH = 40 / SCALE
BORDER = 8 / SCALE
BORDER_MIN_COUNT = 4
CHECKPOINTS = 12
NO_FREEZE = 2500

# gymnasium's car_dynamics.py
SIZE = 0.02
ENGINE_POWER = 100000000 * SIZE * SIZE
WHEEL_MOMENT_OF_INERTIA = 4000 * SIZE * SIZE
FRICTION_LIMIT = 1000000 * SIZE * SIZE
WHEEL_R = 27
WHEEL_W = 14
WHEELPOS = ((-55, +80), (+55, +80), (-55, -82), (+55, -82))
HULL_POLY1 = ((-60, +130), (+60, +130), (+60, +110), (-60, +110))
HULL_POLY2 = ((-15, +120), (+15, +120), (+20, +20), (-20, 20))
HULL_POLY3 = ((+25, +20), (+50, -10), (+50, -40), (+20, -90), (-20, -90), (-50, -40), (-50, -10), (-25, +20))
HULL_POLY4 = ((-50, -120), (+50, -120), (+50, -90), (-50, -90))
WHEEL_POLY = ((-WHEEL_W, +WHEEL_R), (+WHEEL_W, +WHEEL_R), (+WHEEL_W, -WHEEL_R), (-WHEEL_W, -WHEEL_R))
BRAKE_FORCE = 15
TYRE_GRIP = 205000 * SIZE * SIZE  # gymnasium's ``f_force *= 205000 * SIZE * SIZE``: the constant first
MAX_MOTOR_TORQUE = 180 * 900 * SIZE * SIZE
WHEEL_RAD = 1.0 * WHEEL_R * SIZE  # ``front_k * WHEEL_R * SIZE`` with front_k = 1.0
PARTICLES = 30  # the particles deque's maxlen
PARTICLE_POINTS = 30  # a particle grows while it has fewer points than this

_DT = 1.0 / FPS
_DT32 = F32(_DT)
_VELOCITY_ITERATIONS = 6 * 30
_POSITION_ITERATIONS = 2 * 30
START_ALPHA = 2 * math.pi * (-0.5) / CHECKPOINTS

# The hull's four polygons and a wheel's, in float32 as pybox2d hands them to b2PolygonShape::Set.
_HULL_POLYS = np.zeros((4, 8, 2), np.float32)
_HULL_COUNTS = np.zeros(4, np.int64)
for _k, _poly in enumerate((HULL_POLY1, HULL_POLY2, HULL_POLY3, HULL_POLY4)):
    _HULL_COUNTS[_k] = len(_poly)
    for _v, (_x, _y) in enumerate(_poly):
        _HULL_POLYS[_k, _v] = (_x * SIZE, _y * SIZE)
_WHEEL_POINTS = np.array([(x * 1.0 * SIZE, y * 1.0 * SIZE) for x, y in WHEEL_POLY], np.float32)
_WHEEL_POS = np.array(WHEELPOS, np.float64)

# Capacities of a world row (about 700 KiB). The longest track of seeds 0-19,999 has 389 tiles; a longer one than
# MAX_TILES raises. The first step after a reset moves every proxy, so the pair buffer (4 x _PROXIES entries) holds
# each tile's overlaps with its neighbours twice: at most 2,010 entries for those seeds. The car's 8 fixtures meet
# a few tiles each (contacts, and events per step, in the tens).
MAX_TILES = 600
_BODIES = MAX_TILES + 5
_FIXTURES = MAX_TILES + 8
_JOINTS = 4
_CONTACTS = 256
_PROXIES = 2 * _FIXTURES
_EVENTS = 512
MAX_POLYS = 2 * MAX_TILES  # a tile and its border

# env_i columns
_env_i = Columns()
HULL = _env_i.add()
WHEELS = _env_i.add(4)  # the 4 wheel bodies, gymnasium's order
JOINTS = _env_i.add(4)  # the 4 joints
TILE_COUNT = _env_i.add()  # len(self.road): the tile bodies a reset destroys
POLY_COUNT = _env_i.add()  # len(self.road_poly)
VISITED_COUNT = _env_i.add()  # tile_visited_count
NEW_LAP = _env_i.add()
WHEEL_TILES = _env_i.add(4)  # per wheel: len(w.tiles)
# per wheel: w.skid_start is not None (it is then the wheel's live position, as pybox2d's body.position)
SKID_START = _env_i.add(4)
SKID_PARTICLE = _env_i.add(4)  # per wheel: the serial number of w.skid_particle (-1: None)
SKID_LENGTH = _env_i.add(4)  # per wheel: len(w.skid_particle.poly)
SKID_GRASS = _env_i.add(4)  # per wheel: w.skid_particle.grass
PARTICLES_MADE = _env_i.add()  # particles created since the car was: particle s is in the deque if s >= made - 30
TRACK_LENGTH = _env_i.add()  # len(self.track), which the rewards and the lap read (a reset makes it the tile count)
# per world body: a tile's index (>= 0), ROLE_WHEEL - wheel, or ROLE_NONE (the hull, free rows)
BODY_ROLE = _env_i.add(_BODIES)
_NEI = _env_i.end()
ROLE_NONE = -1
ROLE_WHEEL = -2  # ROLE_WHEEL - k is wheel k

# env_f columns
_env_f = Columns()
REWARD = _env_f.add()
PREV_REWARD = _env_f.add()
T = _env_f.add()
FUEL_SPENT = _env_f.add()
ROAD_COLOR = _env_f.add(3)  # RGB
BG_COLOR = _env_f.add(3)
GRASS_COLOR = _env_f.add(3)
GAS = _env_f.add(4)  # per wheel
BRAKE = _env_f.add(4)  # per wheel
STEER = _env_f.add(4)  # per wheel
PHASE = _env_f.add(4)  # per wheel
OMEGA = _env_f.add(4)  # per wheel
SHOWN_REWARD = _env_f.add()  # the reward the step's frame shows: gymnasium draws it before the step's -0.1
_NEF = _env_f.end()

# tile_i columns
_tile_i = Columns()
TILE_BODY = _tile_i.add()
TILE_VISITED = _tile_i.add()
TILE_POLY = _tile_i.add()  # its index in road_poly
_NTI = _tile_i.end()

# part_i columns (per skid-mark slot)
_part_i = Columns()
PART_POINTS = _part_i.add()  # how many of its PARTICLE_POINTS it holds
PART_GRASS = _part_i.add()  # whether it was left on grass (mud-coloured)
_NPI = _part_i.end()

# aux columns (a step's infos)
_aux = Columns()
AUX_LAP = _aux.add()  # gymnasium's lap_finished: LAP_UNSET, LAP_FINISHED or LAP_NOT_FINISHED
AUX_OUT = _aux.add()  # 1.0 when the car left the playfield: the reward is gymnasium's int -100
AUX_WIDTH = _aux.end()  # the float64 info slots per row ``advance`` writes

CarRows = namedtuple(
    "CarRows", ["w", "env_i", "env_f", "track", "tile_i", "poly_xy", "poly_color", "part_i", "part_xy"]
)
"""The state of a batch of CarRacing sub-environments (one row each).

Attributes:
    w: Their Box2D worlds (a ``nbgym._box2d.world.World``).
    env_i: int64 ``(n, _NEI)``: the car's bodies and joints, counts and flags (the ``env_i`` columns above).
    env_f: float64 ``(n, _NEF)``: the values gymnasium keeps in Python floats (the ``env_f`` columns above).
    track: float64 ``(n, MAX_TILES, 4)``: gymnasium's ``track``, ``(alpha, beta, x, y)`` per tile.
    tile_i: int64 ``(n, MAX_TILES, 3)``: per tile its body, ``road_visited`` and its ``road_poly`` index.
    poly_xy: float64 ``(n, MAX_POLYS, 4, 2)``: ``road_poly``'s vertices.
    poly_color: float64 ``(n, MAX_POLYS, 3)``: ``road_poly``'s colours (a tile's is live: contacts reset it).
    part_i: int64 ``(n, PARTICLES, 2)``: per deque slot (particle ``s`` in slot ``s % 30``) its number of points
        and whether it was left on grass.
    part_xy: float64 ``(n, PARTICLES, PARTICLE_POINTS, 2)``: the particles' points.
"""


def new_rows(num_envs: int) -> CarRows:
    """The state of ``num_envs`` sub-environments before their first reset (empty worlds, default colours)."""
    rows = CarRows(
        W.new_world(
            num_envs,
            bodies=_BODIES,
            fixtures=_FIXTURES,
            joints=_JOINTS,
            contacts=_CONTACTS,
            proxies=_PROXIES,
            gravity=(0.0, 0.0),
            events=_EVENTS,
            lane_contacts=0,  # its own step: no world's iterations in vectors
        ),
        np.zeros((num_envs, _NEI), np.int64),
        np.zeros((num_envs, _NEF), np.float64),
        np.zeros((num_envs, MAX_TILES, 4), np.float64),
        np.zeros((num_envs, MAX_TILES, _NTI), np.int64),
        np.zeros((num_envs, MAX_POLYS, 4, 2), np.float64),
        np.zeros((num_envs, MAX_POLYS, 3), np.float64),
        np.zeros((num_envs, PARTICLES, _NPI), np.int64),
        np.zeros((num_envs, PARTICLES, PARTICLE_POINTS, 2), np.float64),
    )
    rows.env_i[:, BODY_ROLE:] = ROLE_NONE
    # gymnasium's default colours (_init_colors without domain_randomize); a randomizing reset draws new ones.
    rows.env_f[:, ROAD_COLOR : ROAD_COLOR + 3] = 102.0
    rows.env_f[:, BG_COLOR : BG_COLOR + 3] = (102.0, 204.0, 102.0)
    rows.env_f[:, GRASS_COLOR : GRASS_COLOR + 3] = (102.0, 230.0, 102.0)
    return rows


# ------------------------------------------------------------------------------------------------ building


@borrowing_njit
def _body(w, i, btype, x, y, angle):
    """``Create{Static,Dynamic}Body(position=(x, y), angle=angle)`` with the b2BodyDef's defaults."""
    return W.create_body(
        w,
        i,
        btype,
        F32(x),
        F32(y),
        F32(angle),
        F32(0.0),
        F32(0.0),
        F32(0.0),
        F32(0.0),
        F32(0.0),
        True,
        True,
        False,
        False,
        True,
        F32(1.0),
    )


@borrowing_njit
def _check_world(w, i):
    """Raises ``PhysicsCapacityError`` if a capacity of world row ``i`` ran out (the port then made nothing, and
    stepping on would be wrong): the engine turns it into a step or reset that needs a reset, which starts the row
    afresh (``create_row``)."""
    if w.world_i[i, W.WI_ERROR] != 0:
        W.raise_capacity_error(w, i)


@borrowing_njit
def _destroy(state, i):
    """gymnasium's ``_destroy``: the tiles in ``road`` order, then the hull and the wheels (``Car.destroy``).

    The listener's EndContact events of the destroyed contacts change nothing that the reset keeps, so it is off.
    """
    w = state.w
    n = state.env_i[i, TILE_COUNT]
    if n == 0:
        return
    w.world_i[i, W.WI_LISTENER] = 0
    for k in range(n):
        b = state.tile_i[i, k, TILE_BODY]
        world_step.destroy_body(w, i, b)
        state.env_i[i, BODY_ROLE + b] = ROLE_NONE
    state.env_i[i, TILE_COUNT] = 0
    world_step.destroy_body(w, i, state.env_i[i, HULL])
    for k in range(4):
        b = state.env_i[i, WHEELS + k]
        world_step.destroy_body(w, i, b)
        state.env_i[i, BODY_ROLE + b] = ROLE_NONE


@njit
def draw_colors(state, i, stream):
    """gymnasium's ``_init_colors``/``_reinit_colors(True)`` with ``domain_randomize``: road and background
    uniform(0, 210, 3), grass = background + 20 on a random channel. gymnasium's env draws them at construction
    too (from its then unseeded stream: what a first reset with ``randomize=False`` keeps)."""
    env_f = state.env_f[i]
    for k in range(3):
        env_f[ROAD_COLOR + k] = rng.uniform(stream, i, 0.0, 210.0)
    for k in range(3):
        env_f[BG_COLOR + k] = rng.uniform(stream, i, 0.0, 210.0)
    for k in range(3):
        env_f[GRASS_COLOR + k] = env_f[BG_COLOR + k]
    idx = rng.integers(stream, i, 0, 3)
    env_f[GRASS_COLOR + idx] += 20


@njit
def _sign(x):
    """np.sign of a float64 (0.0 for either zero)."""
    return 1.0 if x > 0 else (-1.0 if x < 0 else 0.0)


@njit
def _track_loop(checkpoints, track):
    """gymnasium's walk from checkpoint to checkpoint; returns the number of points written to ``track``."""
    x = 1.5 * TRACK_RAD
    y = 0.0
    beta = 0.0
    dest_i = 0
    laps = 0
    n = 0
    no_freeze = NO_FREEZE
    visited_other_side = False
    dest_x = 0.0
    dest_y = 0.0
    while True:
        alpha = math.atan2(y, x)
        if visited_other_side and alpha > 0:
            laps += 1
            visited_other_side = False
        if alpha < 0:
            visited_other_side = True
            alpha += 2 * math.pi
        while True:  # the destination among the checkpoints
            failed = True
            while True:
                c = dest_i % CHECKPOINTS
                dest_alpha = checkpoints[c, 0]
                dest_x = checkpoints[c, 1]
                dest_y = checkpoints[c, 2]
                if alpha <= dest_alpha:
                    failed = False
                    break
                dest_i += 1
                if dest_i % CHECKPOINTS == 0:
                    break
            if not failed:
                break
            alpha -= 2 * math.pi
        r1x = math.cos(beta)
        r1y = math.sin(beta)
        p1x = -r1y
        p1y = r1x
        dest_dx = dest_x - x
        dest_dy = dest_y - y
        proj = r1x * dest_dx + r1y * dest_dy
        while beta - alpha > 1.5 * math.pi:
            beta -= 2 * math.pi
        while beta - alpha < -1.5 * math.pi:
            beta += 2 * math.pi
        prev_beta = beta
        proj *= SCALE
        if proj > 0.3:
            beta -= min(TRACK_TURN_RATE, abs(0.001 * proj))
        if proj < -0.3:
            beta += min(TRACK_TURN_RATE, abs(0.001 * proj))
        x += p1x * TRACK_DETAIL_STEP
        y += p1y * TRACK_DETAIL_STEP
        track[n, 0] = alpha
        track[n, 1] = prev_beta * 0.5 + beta * 0.5
        track[n, 2] = x
        track[n, 3] = y
        n += 1
        if laps > 4:
            break
        no_freeze -= 1
        if no_freeze == 0:
            break
    return n


@njit
def _create_track(state, i, stream, scratch, border):
    """gymnasium's ``_create_track``: the checkpoints' draws, the loop, the closed lap, its borders and tiles.

    Returns whether it succeeded (gymnasium's caller then draws again); on success the tiles are bodies of the
    world and ``track``, ``road_poly`` are set.
    """
    checkpoints = np.empty((CHECKPOINTS, 3))
    for c in range(CHECKPOINTS):
        noise = rng.uniform(stream, i, 0.0, 2 * math.pi * 1 / CHECKPOINTS)
        alpha = 2 * math.pi * c / CHECKPOINTS + noise
        rad = rng.uniform(stream, i, TRACK_RAD / 3, TRACK_RAD)
        if c == 0:
            alpha = 0.0
            rad = 1.5 * TRACK_RAD
        if c == CHECKPOINTS - 1:
            alpha = 2 * math.pi * c / CHECKPOINTS
            rad = 1.5 * TRACK_RAD
        checkpoints[c, 0] = alpha
        checkpoints[c, 1] = rad * math.cos(alpha)
        checkpoints[c, 2] = rad * math.sin(alpha)

    length = _track_loop(checkpoints, scratch)

    # The closed loop i1..i2: the first pass through the start is ignored, the second is kept.
    i1 = -1
    i2 = -1
    k = length
    while True:
        k -= 1
        if k == 0:
            return False
        through_start = scratch[k, 0] > START_ALPHA and scratch[k - 1, 0] <= START_ALPHA
        if through_start and i2 == -1:
            i2 = k
        elif through_start and i1 == -1:
            i1 = k
            break
    n = max(i2 - 1 - i1, 0)  # track[i1 : i2 - 1]
    if n > MAX_TILES:
        raise ValueError("CarRacing: a track longer than physics.MAX_TILES tiles")
    track = state.track[i]
    for k in range(n):
        for c in range(4):
            track[k, c] = scratch[i1 + k, c]
    if n == 0:
        raise ValueError("CarRacing: an empty track (gymnasium fails on it too: track[0] of an empty list)")

    first_beta = track[0, 1]
    first_perp_x = math.cos(first_beta)
    first_perp_y = math.sin(first_beta)
    gx = first_perp_x * (track[0, 2] - track[n - 1, 2])
    gy = first_perp_y * (track[0, 3] - track[n - 1, 3])
    if math.sqrt(gx * gx + gy * gy) > TRACK_DETAIL_STEP:
        return False

    # Red-white borders on hard turns (Python's negative indices wrap around the track)
    for k in range(n):
        good = True
        oneside = 0.0
        for neg in range(BORDER_MIN_COUNT):
            beta1 = track[(k - neg) % n, 1]
            beta2 = track[(k - neg - 1) % n, 1]
            good &= abs(beta1 - beta2) > TRACK_TURN_RATE * 0.2
            oneside += _sign(beta1 - beta2)
        good &= abs(oneside) == BORDER_MIN_COUNT
        border[k] = good
    for k in range(n):
        for neg in range(BORDER_MIN_COUNT):
            border[(k - neg) % n] |= border[k]

    _create_tiles(state, i, n, border)
    return True


@njit
def _create_tiles(state, i, n, border):
    """The tiles (static sensor bodies, in track order) and ``road_poly``: each tile, then its border if any."""
    w = state.w
    env_f = state.env_f[i]
    track = state.track[i]
    si = np.zeros(shapes.SHAPE_INTS, np.int32)
    sf = np.zeros((shapes.SHAPE_ROWS, 2), np.float32)
    points = np.empty((4, 2), np.float32)
    polys = 0
    for k in range(n):
        km = (k - 1) % n
        beta1 = track[k, 1]
        x1 = track[k, 2]
        y1 = track[k, 3]
        beta2 = track[km, 1]
        x2 = track[km, 2]
        y2 = track[km, 3]
        xy = state.poly_xy[i, polys]
        xy[0, 0] = x1 - TRACK_WIDTH * math.cos(beta1)  # road1_l
        xy[0, 1] = y1 - TRACK_WIDTH * math.sin(beta1)
        xy[1, 0] = x1 + TRACK_WIDTH * math.cos(beta1)  # road1_r
        xy[1, 1] = y1 + TRACK_WIDTH * math.sin(beta1)
        xy[2, 0] = x2 + TRACK_WIDTH * math.cos(beta2)  # road2_r
        xy[2, 1] = y2 + TRACK_WIDTH * math.sin(beta2)
        xy[3, 0] = x2 - TRACK_WIDTH * math.cos(beta2)  # road2_l
        xy[3, 1] = y2 - TRACK_WIDTH * math.sin(beta2)
        for v in range(4):
            points[v, 0] = F32(xy[v, 0])
            points[v, 1] = F32(xy[v, 1])
        b = _body(w, i, W.STATIC, 0.0, 0.0, 0.0)
        shapes.polygon_set(si, sf, points, 4)
        # fd_tile: density 0, friction 0.2, restitution 0, category 1, mask 0xFFFF; then fixtures[0].sensor = True
        # (SetSensor wakes the already awake static body: the same as a sensor from the start)
        W.create_fixture(w, i, b, si, sf, F32(0.0), F32(0.2), F32(0.0), 0x0001, 0xFFFF, 0, True)
        c = 0.01 * (k % 3) * 255
        for ch in range(3):
            state.poly_color[i, polys, ch] = env_f[ROAD_COLOR + ch] + c
        state.tile_i[i, k, TILE_BODY] = b
        state.tile_i[i, k, TILE_VISITED] = 0
        state.tile_i[i, k, TILE_POLY] = polys
        state.env_i[i, BODY_ROLE + b] = k
        polys += 1
        if border[k]:
            side = _sign(beta2 - beta1)
            xy = state.poly_xy[i, polys]
            xy[0, 0] = x1 + side * TRACK_WIDTH * math.cos(beta1)  # b1_l
            xy[0, 1] = y1 + side * TRACK_WIDTH * math.sin(beta1)
            xy[1, 0] = x1 + side * (TRACK_WIDTH + BORDER) * math.cos(beta1)  # b1_r
            xy[1, 1] = y1 + side * (TRACK_WIDTH + BORDER) * math.sin(beta1)
            xy[2, 0] = x2 + side * (TRACK_WIDTH + BORDER) * math.cos(beta2)  # b2_r
            xy[2, 1] = y2 + side * (TRACK_WIDTH + BORDER) * math.sin(beta2)
            xy[3, 0] = x2 + side * TRACK_WIDTH * math.cos(beta2)  # b2_l
            xy[3, 1] = y2 + side * TRACK_WIDTH * math.sin(beta2)
            state.poly_color[i, polys, 0] = 255.0
            state.poly_color[i, polys, 1] = 255.0 if k % 2 == 0 else 0.0
            state.poly_color[i, polys, 2] = 255.0 if k % 2 == 0 else 0.0
            polys += 1
    state.env_i[i, TILE_COUNT] = n
    state.env_i[i, TRACK_LENGTH] = n
    state.env_i[i, POLY_COUNT] = polys
    _check_world(w, i)


@njit
def _create_car(state, i, init_angle, init_x, init_y):
    """``Car(world, init_angle, init_x, init_y)``: the hull and its four polygons, then each wheel and its joint."""
    w = state.w
    env_i = state.env_i[i]
    env_f = state.env_f[i]
    si = np.zeros(shapes.SHAPE_INTS, np.int32)
    sf = np.zeros((shapes.SHAPE_ROWS, 2), np.float32)
    hull = _body(w, i, W.DYNAMIC, init_x, init_y, init_angle)
    for k in range(4):
        shapes.polygon_set(si, sf, _HULL_POLYS[k], _HULL_COUNTS[k])
        W.create_fixture(w, i, hull, si, sf, F32(1.0), F32(0.2), F32(0.0), 0x0001, 0xFFFF, 0, False)
    env_i[HULL] = hull
    env_i[BODY_ROLE + hull] = ROLE_NONE
    env_f[FUEL_SPENT] = 0.0
    for k in range(4):
        wx = _WHEEL_POS[k, 0]
        wy = _WHEEL_POS[k, 1]
        wheel = _body(w, i, W.DYNAMIC, init_x + wx * SIZE, init_y + wy * SIZE, init_angle)
        shapes.polygon_set(si, sf, _WHEEL_POINTS, 4)
        W.create_fixture(w, i, wheel, si, sf, F32(0.1), F32(0.2), F32(0.0), 0x0020, 0x001, 0, False)
        env_f[GAS + k] = 0.0
        env_f[BRAKE + k] = 0.0
        env_f[STEER + k] = 0.0
        env_f[PHASE + k] = 0.0
        env_f[OMEGA + k] = 0.0
        env_i[SKID_START + k] = 0
        env_i[SKID_PARTICLE + k] = -1
        env_i[SKID_LENGTH + k] = 0
        env_i[SKID_GRASS + k] = 0
        env_i[WHEEL_TILES + k] = 0
        # pybox2d's revoluteJointDef(bodyA=..., bodyB=...) sets referenceAngle = bodyB.angle - bodyA.angle
        reference = np.float64(w.body_f[i, wheel, W.BF_A]) - np.float64(w.body_f[i, hull, W.BF_A])
        joint = W.create_revolute_joint(
            w,
            i,
            hull,
            wheel,
            F32(wx * SIZE),
            F32(wy * SIZE),
            F32(0.0),
            F32(0.0),
            F32(reference),
            F32(-0.4),
            F32(0.4),
            F32(MAX_MOTOR_TORQUE),
            F32(0.0),
            True,
            True,
            False,
        )
        env_i[WHEELS + k] = wheel
        env_i[JOINTS + k] = joint
        env_i[BODY_ROLE + wheel] = ROLE_WHEEL - k
    env_i[PARTICLES_MADE] = 0
    state.part_i[i, :, :] = 0
    _check_world(w, i)


@njit
def reset_row(params, state, i, stream, aux):
    """gymnasium's ``reset`` (after seeding): ``create_row``, then ``step(None)``."""
    create_row(params, state, i, stream)
    advance(params, state, i, False, aux)


@njit
def create_row(params, state, i, stream):
    """gymnasium's ``reset`` up to its ``step(None)``: the old world's bodies destroyed, the colours drawn when
    ``params.domain_randomize`` and ``params.randomize``, a track (drawn again until one succeeds), the car (what
    gymnasium's "human" mode shows before the idle step)."""
    w = state.w
    env_f = state.env_f[i]
    env_i = state.env_i[i]
    if w.world_i[i, W.WI_ERROR] != 0:
        # a step ran out of a capacity (and raised): the row's bodies are not to be trusted, a new world replaces it
        W.reset_world(w, i, w.world_f[i, W.WF_GX], w.world_f[i, W.WF_GY])
        env_i[TILE_COUNT] = 0
        for b in range(w.body_i.shape[1]):
            env_i[BODY_ROLE + b] = ROLE_NONE
    _destroy(state, i)
    w.world_i[i, W.WI_LISTENER] = W.LISTEN_EVENTS
    w.world_i[i, W.WI_EVENT_COUNT] = 0
    env_f[REWARD] = 0.0
    env_f[PREV_REWARD] = 0.0
    env_i[VISITED_COUNT] = 0
    env_f[T] = 0.0
    env_f[SHOWN_REWARD] = 0.0
    env_i[NEW_LAP] = 0
    env_i[POLY_COUNT] = 0
    if params.domain_randomize and params.randomize:
        draw_colors(state, i, stream)
    scratch = np.empty((NO_FREEZE, 4))
    border = np.zeros(MAX_TILES, np.bool_)
    while not _create_track(state, i, stream, scratch, border):
        pass
    track = state.track[i]
    _create_car(state, i, track[0, 1], track[0, 2], track[0, 3])


# ----------------------------------------------------------------------------------------------- controls


@borrowing_njit
def car_gas(state, i, gas):
    """``Car.gas``: clipped to [0, 1]; the rear wheels' gas rises by at most 0.1 a step, falls at once."""
    gas = min(max(gas, 0.0), 1.0)
    env_f = state.env_f[i]
    for k in range(2, 4):
        diff = gas - env_f[GAS + k]
        if diff > 0.1:
            diff = 0.1
        env_f[GAS + k] += diff


@borrowing_njit
def car_brake(state, i, b):
    for k in range(4):
        state.env_f[i, BRAKE + k] = b


@borrowing_njit
def car_steer(state, i, s):
    state.env_f[i, STEER + 0] = s
    state.env_f[i, STEER + 1] = s


@borrowing_njit
def apply_continuous(state, i, steer, gas, brake):
    """gymnasium's continuous action (float64 values, as ``action.astype(np.float64)``): steer(-a0), gas(a1), brake(a2)."""
    car_steer(state, i, -steer)
    car_gas(state, i, gas)
    car_brake(state, i, brake)


@borrowing_njit
def apply_discrete(state, i, action):
    """gymnasium's discrete action: 0 nothing, 1 right, 2 left, 3 gas, 4 brake."""
    car_steer(state, i, -0.6 * (1.0 if action == 1 else 0.0) + 0.6 * (1.0 if action == 2 else 0.0))
    car_gas(state, i, 0.2 * (1.0 if action == 3 else 0.0))
    car_brake(state, i, 0.8 * (1.0 if action == 4 else 0.0))


# ---------------------------------------------------------------------------------------------- the car step


@borrowing_njit
def _add_particle_point(state, i, k, x, y):
    """``w.skid_particle.poly.append(w.position)``, into the deque slot if the particle is still in the deque."""
    env_i = state.env_i[i]
    s = env_i[SKID_PARTICLE + k]
    if s >= env_i[PARTICLES_MADE] - PARTICLES:
        slot = s % PARTICLES
        n = state.part_i[i, slot, PART_POINTS]
        state.part_xy[i, slot, n, 0] = x
        state.part_xy[i, slot, n, 1] = y
        state.part_i[i, slot, PART_POINTS] = n + 1
    env_i[SKID_LENGTH + k] += 1


@borrowing_njit
def _create_particle(state, i, k, x, y, grass):
    """``Car._create_particle(w.skid_start, w.position, grass)``: both points are the wheel's position, since
    pybox2d's ``skid_start = w.position`` is a live view of it."""
    env_i = state.env_i[i]
    s = env_i[PARTICLES_MADE]
    env_i[PARTICLES_MADE] = s + 1
    slot = s % PARTICLES
    state.part_i[i, slot, PART_POINTS] = 2
    state.part_i[i, slot, PART_GRASS] = 1 if grass else 0
    for p in range(2):
        state.part_xy[i, slot, p, 0] = x
        state.part_xy[i, slot, p, 1] = y
    env_i[SKID_PARTICLE + k] = s
    env_i[SKID_LENGTH + k] = 2
    env_i[SKID_GRASS + k] = 1 if grass else 0


@borrowing_njit
def _car_step(state, i, dt):
    """``Car.step(dt)``: each wheel's steering motor, engine, brakes, tyre friction (road or grass), skid
    traces, and the tyre force applied to it."""
    w = state.w
    env_i = state.env_i[i]
    env_f = state.env_f[i]
    zero = F32(0.0)
    one = F32(1.0)
    for k in range(4):
        wheel = env_i[WHEELS + k]
        joint = env_i[JOINTS + k]
        steer = env_f[STEER + k]
        angle = np.float64(revolute_joint.joint_angle(w, i, joint))
        direction = _sign(steer - angle)
        val = abs(steer - angle)
        revolute_joint.set_motor_speed(w, i, joint, F32(direction * min(50.0 * val, 3.0)))

        grass = True
        friction_limit = FRICTION_LIMIT * 0.6
        if env_i[WHEEL_TILES + k] > 0:  # every tile's road_friction is 1.0
            friction_limit = max(friction_limit, FRICTION_LIMIT * 1.0)
            grass = False

        bf = w.body_f[i, wheel]
        qs = bf[W.BF_QS]
        qc = bf[W.BF_QC]
        # GetWorldVector((0, 1)) and ((1, 0)): b2Mul(q, v) in float32
        forw0 = np.float64(qc * zero - qs * one)
        forw1 = np.float64(qs * zero + qc * one)
        side0 = np.float64(qc * one - qs * zero)
        side1 = np.float64(qs * one + qc * zero)
        v0 = np.float64(bf[W.BF_VX])
        v1 = np.float64(bf[W.BF_VY])
        vf = forw0 * v0 + forw1 * v1
        vs = side0 * v0 + side1 * v1

        omega = env_f[OMEGA + k]
        gas = env_f[GAS + k]
        omega += dt * ENGINE_POWER * gas / WHEEL_MOMENT_OF_INERTIA / (abs(omega) + 5.0)
        env_f[FUEL_SPENT] += dt * ENGINE_POWER * gas

        brake = env_f[BRAKE + k]
        if brake >= 0.9:
            omega = 0.0
        elif brake > 0:
            direction = -_sign(omega)
            val = BRAKE_FORCE * brake
            if abs(val) > abs(omega):
                val = abs(omega)
            omega += direction * val
        env_f[PHASE + k] += omega * dt

        vr = omega * WHEEL_RAD
        f_force = -vf + vr
        p_force = -vs
        f_force *= TYRE_GRIP
        p_force *= TYRE_GRIP
        force = math.sqrt(f_force * f_force + p_force * p_force)

        if abs(force) > 2.0 * friction_limit:
            px = np.float64(bf[W.BF_PX])
            py = np.float64(bf[W.BF_PY])
            if (
                env_i[SKID_PARTICLE + k] >= 0
                and (env_i[SKID_GRASS + k] != 0) == grass
                and env_i[SKID_LENGTH + k] < PARTICLE_POINTS
            ):
                _add_particle_point(state, i, k, px, py)
            elif env_i[SKID_START + k] == 0:
                env_i[SKID_START + k] = 1
            else:
                _create_particle(state, i, k, px, py, grass)
                env_i[SKID_START + k] = 0
        else:
            env_i[SKID_START + k] = 0
            env_i[SKID_PARTICLE + k] = -1

        if abs(force) > friction_limit:
            f_force /= force
            p_force /= force
            force = friction_limit
            f_force *= force
            p_force *= force

        omega -= dt * f_force * WHEEL_RAD / WHEEL_MOMENT_OF_INERTIA
        env_f[OMEGA + k] = omega

        W.apply_force_to_center(
            w, i, wheel, F32(p_force * side0 + f_force * forw0), F32(p_force * side1 + f_force * forw1), True
        )


@borrowing_njit
def _contact_events(params, state, i):
    """gymnasium's ``FrictionDetector._contact`` on each BeginContact/EndContact of the step, in order."""
    w = state.w
    env_i = state.env_i[i]
    env_f = state.env_f[i]
    n_tiles = env_i[TRACK_LENGTH]
    for e in range(w.world_i[i, W.WI_EVENT_COUNT]):
        ba = w.fixture_i[i, w.events[i, e, W.EV_FIXTURE_A], W.FI_BODY]
        bb = w.fixture_i[i, w.events[i, e, W.EV_FIXTURE_B], W.FI_BODY]
        ra = env_i[BODY_ROLE + ba]
        rb = env_i[BODY_ROLE + bb]
        tile = -1
        obj = ROLE_NONE
        if ra >= 0:
            tile = ra
            obj = rb
        if rb >= 0:
            tile = rb
            obj = ra
        if tile < 0:
            continue
        poly = state.tile_i[i, tile, TILE_POLY]
        for ch in range(3):
            state.poly_color[i, poly, ch] = env_f[ROAD_COLOR + ch]
        if obj > ROLE_WHEEL:  # not a wheel: no ``tiles`` attribute
            continue
        k = ROLE_WHEEL - obj
        if w.events[i, e, W.EV_BEGIN]:
            env_i[WHEEL_TILES + k] += 1
            if state.tile_i[i, tile, TILE_VISITED] == 0:
                state.tile_i[i, tile, TILE_VISITED] = 1
                env_f[REWARD] += 1000.0 / n_tiles
                env_i[VISITED_COUNT] += 1
                if tile == 0 and env_i[VISITED_COUNT] / n_tiles > params.lap_complete_percent:
                    env_i[NEW_LAP] = 1
        else:
            env_i[WHEEL_TILES + k] -= 1
    w.world_i[i, W.WI_EVENT_COUNT] = 0


LAP_UNSET = 0
LAP_FINISHED = 1
LAP_NOT_FINISHED = 2
"""aux[i, AUX_LAP] after a step: gymnasium's ``info`` has no ``lap_finished`` (LAP_UNSET), True or False."""


@borrowing_njit
def advance(params, state, i, has_action, aux):
    """gymnasium's ``step`` once the action is applied: ``Car.step``, one Box2D step, the listener's events,
    then (with an action) the reward and termination. Returns ``(reward, terminated)``; ``aux[i, AUX_LAP]`` gets
    ``lap_finished`` (LAP_*) and ``aux[i, AUX_OUT]`` 1.0 when the reward is gymnasium's int -100."""
    w = state.w
    env_i = state.env_i[i]
    env_f = state.env_f[i]
    _car_step(state, i, _DT)
    world_step.step(w, i, _DT32, _VELOCITY_ITERATIONS, _POSITION_ITERATIONS)
    _check_world(w, i)
    _contact_events(params, state, i)
    env_f[T] += 1.0 / FPS
    env_f[SHOWN_REWARD] = env_f[REWARD]

    step_reward = 0.0
    terminated = False
    lap = LAP_UNSET
    out = False
    if has_action:
        env_f[REWARD] -= 0.1
        env_f[FUEL_SPENT] = 0.0
        step_reward = env_f[REWARD] - env_f[PREV_REWARD]
        env_f[PREV_REWARD] = env_f[REWARD]
        if env_i[VISITED_COUNT] == env_i[TRACK_LENGTH] or env_i[NEW_LAP] != 0:
            terminated = True
            lap = LAP_FINISHED
        hull = env_i[HULL]
        x = np.float64(w.body_f[i, hull, W.BF_PX])
        y = np.float64(w.body_f[i, hull, W.BF_PY])
        if abs(x) > PLAYFIELD or abs(y) > PLAYFIELD:
            terminated = True
            lap = LAP_NOT_FINISHED
            step_reward = -100.0
            out = True
    aux[i, AUX_LAP] = lap
    aux[i, AUX_OUT] = 1.0 if out else 0.0
    return step_reward, terminated


@njit
def step_row(params, state, i, actions, stream, aux):
    """gymnasium's ``step(action)`` on row ``i``: ``actions[i]`` is ``(steer, gas, brake)`` (continuous) or an
    int (discrete), as ``params.continuous`` says. The caller validates the actions (gymnasium refuses a discrete
    action outside 0-4; here any other int acts as 0)."""
    rows = actions.reshape((actions.shape[0], -1))  # one shape for Discrete's (n,) and Box's (n, 3) actions
    if params.continuous:
        apply_continuous(state, i, np.float64(rows[i, 0]), np.float64(rows[i, 1]), np.float64(rows[i, 2]))
    else:
        apply_discrete(state, i, rows[i, 0])
    return advance(params, state, i, True, aux)


PARAMS = np.dtype(
    [
        ("continuous", np.bool_),
        ("domain_randomize", np.bool_),
        ("lap_complete_percent", np.float64),
        ("randomize", np.bool_),
    ]
)
"""The kernels' parameter record: gymnasium's ``continuous``, ``domain_randomize``, ``lap_complete_percent``, and
the reset option ``randomize`` (whether a ``domain_randomize`` reset draws new colours)."""


def new_params(
    continuous: bool = True, domain_randomize: bool = False, lap_complete_percent: float = 0.95, randomize: bool = True
) -> np.record:
    """The parameter record the kernels read (``randomize``: the reset option, read when ``domain_randomize``)."""
    params = np.zeros(1, PARAMS).view(np.recarray)
    params[0] = (continuous, domain_randomize, lap_complete_percent, randomize)
    return params[0]


@njit
def _check_rows(state, n, stream, aux):
    if (
        n != state.env_i.shape[0]
        or aux.shape[0] != n
        or aux.shape[1] < AUX_WIDTH
        or stream[0].shape[0] != n
        or stream[1].shape[0] != n
    ):
        raise ValueError(
            "CarRacing rows: the arrays passed need one entry per row (a stream row each, aux AUX_WIDTH slots)"
        )


@njit
def reset_rows(params, state, stream, mask, aux):
    """``reset_row`` on every row where ``mask`` is set (one entry per row)."""
    _check_rows(state, mask.shape[0], stream, aux)
    for i in range(mask.shape[0]):
        if mask[i]:
            reset_row(params, state, i, stream, aux)


@njit
def step_rows(params, state, actions, stream, rewards, terminated, aux):
    """``step_row`` on every row; rewards and terminated flags into ``rewards`` and ``terminated``."""
    _check_rows(state, rewards.shape[0], stream, aux)
    if actions.shape[0] != rewards.shape[0] or terminated.shape[0] != rewards.shape[0]:
        raise ValueError("step_rows: actions, rewards and terminated need one entry per row")
    if actions.size != actions.shape[0] * (3 if params.continuous else 1):
        raise ValueError("step_rows: actions need 3 values per row (continuous) or 1 (discrete)")
    for i in range(rewards.shape[0]):
        rewards[i], terminated[i] = step_row(params, state, i, actions, stream, aux)
