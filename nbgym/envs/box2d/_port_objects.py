"""Box2D objects over the compiled port's rows: what a user of gymnasium's Box2D envs touches (``env.unwrapped.world``,
``lander``, ``legs``, a body's ``position``, ``fixtures``, ``ApplyForceToCenter``...), reading and writing the
port ``World`` that the env's kernels step, with pybox2d 2.3.10's semantics and float32 values.

Nothing here holds state of its own: a :class:`PortBody` is a body index of a world row, and every read or write
goes to the arrays the env holds *now* (a world that grows is replaced by a larger copy). The env is the objects'
``source`` (:class:`PortSource`): it hands out the current world row, after making room for what a call may add
to its broad phase, and the Python object that stands for each body (its own ``lander``, ``legs``...).

A Box2D attribute these objects do not serve raises ``AttributeError`` saying so, rather than holding an
assignment nobody reads: gymnasium's own environment (``gymnasium.make``, on the ``box2d`` wheel) has the SWIG
objects.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Iterator, Protocol

import numpy as np

from nbgym import error
from nbgym._box2d import broad_phase
from nbgym._box2d import shapes as port_shapes
from nbgym._box2d import world as W
from nbgym._box2d import revolute_joint, world_step
from nbgym._box2d.math import atan2f
from nbgym.envs._read_only import ReadOnlyList

__all__ = [
    "CircleShape",
    "EdgeShape",
    "EpisodeObject",
    "GroundedBody",
    "fixed_world_row",
    "PolygonShape",
    "PortBody",
    "PortFixture",
    "PortSource",
    "PortWorld",
    "RevoluteJoint",
    "Transform",
    "Vec2",
    "float32_pair",
]

F32 = np.float32

_ELSEWHERE = (
    "nbgym's Box2D envs run on a compiled port of Box2D; gymnasium.make(...) gives the environment on the box2d "
    "wheel, whose SWIG objects have it"
)


class PortSource(Protocol):
    """What the objects need from the environment that holds the world."""

    def _port_world(self, moved_proxies: int = 0) -> tuple[W.World, int]:
        """The ``World`` the kernels step now and the row of this env's world, with room in its broad phase for
        ``moved_proxies`` more proxy moves (a ``SetTransform``'s) and the pairs and contacts they may find."""

    def _port_body(self, index: int) -> PortBody:
        """The object that stands for body ``index`` (the env's own ``lander``, a leg...)."""

    _port_generation: int
    """The number of the env's resets: objects made before the last reset refuse to be read (their rows may hold
    another episode's items since)."""

    _port_world_per_episode: bool
    """Whether gymnasium's env makes a new ``b2World`` at each reset (LunarLander) rather than keeping the one it
    made at construction (BipedalWalker, CarRacing): a held ``world`` then belongs to its episode."""


def fixed_world_row(w: W.World, env_name: str, moved_proxies: int) -> tuple[W.World, int]:
    """``(w, 0)``: the world row of a single env whose world never grows (``PortSource._port_world``).

    Raises:
        PhysicsCapacityError: If ``moved_proxies`` more proxy moves (a ``SetTransform``) would overflow the broad
            phase's move buffer before the next step empties it.
    """
    if moved_proxies and w.bp_i[0, broad_phase.MOVE_COUNT] + moved_proxies > w.move_buffer.shape[1]:
        raise error.PhysicsCapacityError(
            f"{env_name}'s world cannot move {moved_proxies} more proxies before its next step (its move buffer "
            f"holds {w.move_buffer.shape[1]}): step the environment first."
        )
    return w, 0


def write_prev_shaping(env_f: np.ndarray, env_i: np.ndarray, column: int, flag: int, value: Any, env_name: str) -> None:
    """Writes a ``prev_shaping`` into its row: the float in ``env_f[column]`` and ``env_i[flag]`` 1, or ``env_i[flag]``
    0 for gymnasium's ``None`` (before an episode's first step). A NaN is kept (gymnasium's next reward is NaN).

    Raises:
        TypeError: If ``value`` is neither ``None`` nor a Python or float64 number.
    """
    if value is None:
        env_i[flag] = 0
        return
    if type(value) not in (int, float, np.float64):
        raise TypeError(
            f"{env_name}.prev_shaping takes None or a float (the kernels compute in float64), got {value!r} "
            f"({type(value).__name__})."
        )
    env_f[column] = float(value)
    env_i[flag] = 1


def float32_pair(value: Any, what: str) -> tuple[np.float32, np.float32]:
    """``value`` (a ``Vec2``, a pair of numbers, an array of two) as two float32, as pybox2d's b2Vec2 typemap takes it.

    Raises:
        TypeError: If ``value`` is not two numbers.
    """
    try:
        x, y = value
        return F32(float(x)), F32(float(y))
    except (TypeError, ValueError):
        raise TypeError(f"{what} takes two numbers (x, y), got {value!r}") from None


class Vec2(tuple):
    """A b2Vec2 value: ``.x``, ``.y``, indexing, and pybox2d's float32 vector arithmetic. A copy: assign the owner's
    attribute (``body.position = (x, y)``) to change a body."""

    __slots__ = ()

    def __new__(cls, x: Any, y: Any) -> Vec2:
        return super().__new__(cls, (float(F32(x)), float(F32(y))))

    @property
    def x(self) -> float:
        return self[0]

    @property
    def y(self) -> float:
        return self[1]

    @property
    def length(self) -> float:
        """b2Vec2::Length (float32)."""
        x, y = F32(self[0]), F32(self[1])
        return float(F32(math.sqrt(F32(x * x + y * y))))

    @property
    def lengthSquared(self) -> float:  # noqa: N802 (pybox2d's name)
        x, y = F32(self[0]), F32(self[1])
        return float(F32(x * x + y * y))

    def __add__(self, other: Any) -> Vec2:  # type: ignore[override]
        ox, oy = float32_pair(other, "Vec2 +")
        return Vec2(F32(self[0]) + ox, F32(self[1]) + oy)

    __radd__ = __add__

    def __sub__(self, other: Any) -> Vec2:
        ox, oy = float32_pair(other, "Vec2 -")
        return Vec2(F32(self[0]) - ox, F32(self[1]) - oy)

    def __rsub__(self, other: Any) -> Vec2:
        ox, oy = float32_pair(other, "Vec2 -")
        return Vec2(ox - F32(self[0]), oy - F32(self[1]))

    def __mul__(self, scalar: Any) -> Vec2:  # type: ignore[override]
        if not isinstance(scalar, (int, float, np.number)):
            return NotImplemented
        a = F32(scalar)
        return Vec2(F32(self[0]) * a, F32(self[1]) * a)

    __rmul__ = __mul__

    def __truediv__(self, scalar: Any) -> Vec2:
        a = F32(scalar)
        return Vec2(F32(self[0]) / a, F32(self[1]) / a)

    def __neg__(self) -> Vec2:
        return Vec2(-F32(self[0]), -F32(self[1]))

    def __repr__(self) -> str:
        return f"b2Vec2({self[0]:g},{self[1]:g})"


class Transform:
    """A b2Transform value (a copy of a body's): ``position``, ``angle``, and ``transform * v`` (b2Mul, float32)."""

    __slots__ = ("_xf",)

    def __init__(self, xf: np.ndarray) -> None:
        self._xf = np.array(xf[:4], np.float32)

    @property
    def position(self) -> Vec2:
        return Vec2(self._xf[0], self._xf[1])

    @property
    def angle(self) -> float:
        """b2Rot::GetAngle."""
        return float(atan2f(self._xf[2], self._xf[3]))

    def __mul__(self, v: Any) -> Vec2:
        """``b2Mul(T, v)``: ``(q.c v.x - q.s v.y) + p.x``, ``(q.s v.x + q.c v.y) + p.y`` in float32."""
        x, y = float32_pair(v, "Transform *")
        px, py, s, c = self._xf
        return Vec2((c * x - s * y) + px, (s * x + c * y) + py)

    def __iter__(self) -> Iterator[Any]:
        """``(position, angle)``: what ``body.transform = ...`` takes, as pybox2d's setter does."""
        return iter((self.position, self.angle))

    def __repr__(self) -> str:
        return f"b2Transform(position={self.position!r}, angle={self.angle:g})"


class _Frozen:
    """A value object whose attributes are fixed after construction."""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(
            f"{type(self).__name__}.{name} is a copy of the compiled world's shape and cannot change a fixture "
            f"({_ELSEWHERE})."
        )


class CircleShape(_Frozen):
    """A b2CircleShape's values: ``radius`` and ``pos``."""

    __slots__ = ("radius", "pos")

    def __init__(self, radius: float, pos: Vec2) -> None:
        object.__setattr__(self, "radius", radius)
        object.__setattr__(self, "pos", pos)


class PolygonShape(_Frozen):
    """A b2PolygonShape's values: ``vertices`` (a list of ``(x, y)`` tuples, as pybox2d's) and ``radius``."""

    __slots__ = ("vertices", "radius")

    def __init__(self, vertices: list[tuple[float, float]], radius: float) -> None:
        object.__setattr__(self, "vertices", vertices)
        object.__setattr__(self, "radius", radius)


class EdgeShape(_Frozen):
    """A b2EdgeShape's values: ``vertices`` (its two ends) and ``radius``."""

    __slots__ = ("vertices", "radius")

    def __init__(self, vertices: list[tuple[float, float]], radius: float) -> None:
        object.__setattr__(self, "vertices", vertices)
        object.__setattr__(self, "radius", radius)


def _shape(shape_i: np.ndarray, shape_f: np.ndarray) -> CircleShape | PolygonShape | EdgeShape:
    kind = shape_i[port_shapes.TYPE]
    radius = float(shape_f[port_shapes.RADIUS, 0])
    vertices = shape_f[port_shapes.VERTICES : port_shapes.VERTICES + shape_i[port_shapes.COUNT]]
    points = [(float(x), float(y)) for x, y in vertices]
    if kind == port_shapes.CIRCLE:
        return CircleShape(radius, Vec2(*points[0]))
    if kind == port_shapes.EDGE:
        return EdgeShape(points, radius)
    return PolygonShape(points, radius)


def _refused(name: str, how: str) -> property:
    """A property that refuses to be read or set, saying ``how`` to get what it is for."""

    def get(self: Any) -> Any:
        raise AttributeError(f"{type(self).__name__}.{name} is not served by the compiled world: {how}.")

    return property(get, _refusing_setter(name, how))


def _read_only(get: Any, name: str, how: str) -> property:
    """A property read with ``get`` that refuses to be set, saying ``how``."""
    return property(get, _refusing_setter(name, how), doc=get.__doc__)


def _refusing_setter(name: str, how: str) -> Any:
    def set(self: Any, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__}.{name} cannot be set on the compiled world: {how}.")

    return set


class EpisodeObject:
    """An object handed out over the env's rows that gymnasium's env makes anew at each reset (a body, fixture or
    joint, LunarLander's world, a lidar ray, the car): gymnasium's held object keeps the last episode's values, but
    the rows it reads are the next episode's, so it refuses (``ReferenceError``) once the env was reset since it was
    handed out, rather than read or write another episode. Subclasses set ``_source`` (the env, a
    :class:`PortSource`) and ``_generation`` (the env's ``_port_generation`` when handed out; ``None`` for an
    object gymnasium keeps across resets)."""

    __slots__ = ()

    _source: Any
    _generation: int | None

    def _is_current(self) -> bool:
        """Whether the object belongs to the env's current episode (or to no episode)."""
        return self._generation is None or self._source._port_generation == self._generation

    def _episode_source(self) -> Any:
        """The env, for an object of its current episode.

        Raises:
            ReferenceError: If the env was reset since the object was handed out.
        """
        if not self._is_current():
            raise ReferenceError(
                f"this {type(self).__name__} belongs to an episode before the env's last reset (gymnasium's env made "
                f"a new one, and the rows it read now hold the new episode's): read the env's attribute again."
            )
        return self._source


class _PortObject(EpisodeObject):
    """An item of a port world (a body, fixture, joint): it reads the world its env steps now, and refuses once
    the env was reset since it was handed out (its row may then hold another episode's item, or none)."""

    def __init__(self, source: PortSource, index: int) -> None:
        self._source = source
        self._index = index
        self._generation = source._port_generation

    def _world(self, moved_proxies: int = 0) -> tuple[W.World, int]:
        return self._episode_source()._port_world(moved_proxies)


class PortFixture(_PortObject):
    """A b2Fixture of a port world: ``body``, ``shape`` (a copy), ``density``, ``friction``, ``restitution``,
    ``sensor``, ``filterData`` (read), ``categoryBits``/``maskBits``/``groupIndex``."""

    def _row(self) -> tuple[W.World, int]:
        return self._world()

    @property
    def body(self) -> PortBody:
        w, r = self._row()
        return self._source._port_body(int(w.fixture_i[r, self._index, W.FI_BODY]))

    @property
    def shape(self) -> CircleShape | PolygonShape | EdgeShape:
        w, r = self._row()
        return _shape(w.shape_i[r, self._index], w.shape_f[r, self._index])

    def _float(column: int, doc: str) -> property:  # noqa: N805 (a class-body helper)
        def get(self: PortFixture) -> float:
            w, r = self._row()
            return float(w.fixture_f[r, self._index, column])

        def set(self: PortFixture, value: float) -> None:
            w, r = self._row()
            w.fixture_f[r, self._index, column] = F32(value)

        return property(get, set, doc=doc)

    density = _float(
        W.FF_DENSITY, "b2Fixture::GetDensity/SetDensity (the body's mass changes at its next ResetMassData)."
    )
    friction = _float(W.FF_FRICTION, "b2Fixture::GetFriction/SetFriction (contacts made from now on mix it).")
    restitution = _float(W.FF_RESTITUTION, "b2Fixture::GetRestitution/SetRestitution (for contacts made from now on).")
    del _float

    @property
    def sensor(self) -> bool:
        w, r = self._row()
        return bool(w.fixture_i[r, self._index, W.FI_SENSOR])

    def _filter_data(self) -> dict[str, int]:
        """The fixture's b2Filter as a dict (a copy)."""
        w, r = self._row()
        fi = w.fixture_i[r, self._index]
        return {
            "categoryBits": int(fi[W.FI_CATEGORY]),
            "maskBits": int(fi[W.FI_MASK]),
            "groupIndex": int(fi[W.FI_GROUP]),
        }

    filterData = _read_only(  # noqa: N815 (pybox2d's name)
        _filter_data,
        "filterData",
        "a new filter would refilter the contacts (b2Fixture::Refilter), which the port does not",
    )

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, PortFixture)
            and other._source is self._source
            and other._index == self._index
            and other._generation == self._generation
        )

    def __hash__(self) -> int:
        return hash((id(self._source), self._index))

    def __repr__(self) -> str:
        return f"<PortFixture {self._index} of {type(self.shape).__name__}>"


class PortBody(_PortObject):
    """A b2Body of a port world, read and written where the kernels keep it, as pybox2d's b2Body.

    Setting ``position``, ``angle`` or ``transform`` is ``SetTransform`` (the proxies move, new contacts are
    found); ``linearVelocity``/``angularVelocity`` are ``SetLinearVelocity``/``SetAngularVelocity`` (a non-zero
    value wakes the body, a static body keeps still); ``awake`` is ``SetAwake``. Other attributes may be added
    (``color1``...), as on pybox2d's bodies; Box2D attributes the port does not serve raise ``AttributeError``.
    """

    def _row(self, moved_proxies: int = 0) -> tuple[W.World, int, int]:
        w, r = self._world(moved_proxies)
        b = self._index
        if not w.body_i[r, b, W.BI_ALIVE]:
            raise ReferenceError(f"body {b} was destroyed (a particle that expired, or a body of an earlier episode)")
        return w, r, b

    def _f(self, column: int) -> float:
        w, r, b = self._row()
        return float(w.body_f[r, b, column])

    # -- transform ------------------------------------------------------------------------------------------

    @property
    def position(self) -> Vec2:
        """The body origin's world position; setting it is ``SetTransform(position, angle)``."""
        w, r, b = self._row()
        return Vec2(w.body_f[r, b, W.BF_PX], w.body_f[r, b, W.BF_PY])

    @position.setter
    def position(self, value: Any) -> None:
        self._set_transform(value, self.angle)

    @property
    def angle(self) -> float:
        """The body's angle (radians); setting it is ``SetTransform(position, angle)``."""
        return self._f(W.BF_A)

    @angle.setter
    def angle(self, value: Any) -> None:
        self._set_transform(self.position, value)

    @property
    def transform(self) -> Transform:
        """A copy of the body's b2Transform; setting ``(position, angle)`` is ``SetTransform``."""
        w, r, b = self._row()
        return Transform(w.body_f[r, b, W.BF_XF : W.BF_XF + 4])

    @transform.setter
    def transform(self, value: Any) -> None:
        position, angle = value
        self._set_transform(position, angle)

    def _set_transform(self, position: Any, angle: Any) -> None:
        px, py = float32_pair(position, "position")
        angle = F32(float(angle))
        w, r, b = self._row()
        w, r, b = self._row(moved_proxies=int(w.body_i[r, b, W.BI_FIXTURE_COUNT]))
        world_step.set_transform(w, r, b, px, py, angle)

    @property
    def worldCenter(self) -> Vec2:  # noqa: N802 (pybox2d's names, here and below)
        w, r, b = self._row()
        return Vec2(w.body_f[r, b, W.BF_CX], w.body_f[r, b, W.BF_CY])

    @property
    def localCenter(self) -> Vec2:  # noqa: N802
        w, r, b = self._row()
        return Vec2(w.body_f[r, b, W.BF_LCX], w.body_f[r, b, W.BF_LCY])

    def GetWorldPoint(self, localPoint: Any) -> Vec2:  # noqa: N802,N803
        """``b2Mul(transform, localPoint)``."""
        return self.transform * localPoint

    def GetWorldVector(self, localVector: Any) -> Vec2:  # noqa: N802,N803
        """``b2Mul(transform.q, localVector)``."""
        x, y = float32_pair(localVector, "localVector")
        w, r, b = self._row()
        s, c = w.body_f[r, b, W.BF_QS], w.body_f[r, b, W.BF_QC]
        return Vec2(c * x - s * y, s * x + c * y)

    def GetLocalPoint(self, worldPoint: Any) -> Vec2:  # noqa: N802,N803
        """``b2MulT(transform, worldPoint)``."""
        x, y = float32_pair(worldPoint, "worldPoint")
        w, r, b = self._row()
        px, py, s, c = w.body_f[r, b, W.BF_XF : W.BF_XF + 4]
        dx, dy = x - px, y - py
        return Vec2(c * dx + s * dy, -s * dx + c * dy)

    # -- velocities, sleep -----------------------------------------------------------------------------------

    @property
    def linearVelocity(self) -> Vec2:  # noqa: N802
        """The centre of mass's velocity; setting it is ``SetLinearVelocity``."""
        w, r, b = self._row()
        return Vec2(w.body_f[r, b, W.BF_VX], w.body_f[r, b, W.BF_VY])

    @linearVelocity.setter
    def linearVelocity(self, value: Any) -> None:  # noqa: N802
        vx, vy = float32_pair(value, "linearVelocity")
        w, r, b = self._row()
        W.set_linear_velocity(w, r, b, vx, vy)

    @property
    def angularVelocity(self) -> float:  # noqa: N802
        """The angular velocity (rad/s); setting it is ``SetAngularVelocity``."""
        return self._f(W.BF_W)

    @angularVelocity.setter
    def angularVelocity(self, value: Any) -> None:  # noqa: N802
        w, r, b = self._row()
        W.set_angular_velocity(w, r, b, F32(float(value)))

    @property
    def awake(self) -> bool:
        """Whether the body is awake; setting it is ``SetAwake`` (asleep: velocities and forces zeroed)."""
        w, r, b = self._row()
        return bool(w.body_i[r, b, W.BI_FLAGS] & W.AWAKE_FLAG)

    @awake.setter
    def awake(self, value: Any) -> None:
        w, r, b = self._row()
        W.set_awake(w, r, b, bool(value))

    @property
    def sleepingAllowed(self) -> bool:  # noqa: N802
        w, r, b = self._row()
        return bool(w.body_i[r, b, W.BI_FLAGS] & W.AUTO_SLEEP_FLAG)

    @sleepingAllowed.setter
    def sleepingAllowed(self, value: Any) -> None:  # noqa: N802
        """b2Body::SetSleepingAllowed: forbidding sleep wakes the body."""
        w, r, b = self._row()
        if value:
            w.body_i[r, b, W.BI_FLAGS] |= W.AUTO_SLEEP_FLAG
        else:
            w.body_i[r, b, W.BI_FLAGS] &= ~W.AUTO_SLEEP_FLAG
            W.set_awake(w, r, b, True)

    # -- mass and damping ------------------------------------------------------------------------------------

    def _mass(self) -> float:
        """The body's mass (b2Body::GetMass)."""
        return self._f(W.BF_MASS)

    def _inertia(self) -> float:
        """The rotational inertia about the body origin (b2Body::GetInertia)."""
        w, r, b = self._row()
        bf = w.body_f[r, b]
        lcx, lcy = bf[W.BF_LCX], bf[W.BF_LCY]
        return float(bf[W.BF_I] + bf[W.BF_MASS] * (lcx * lcx + lcy * lcy))

    mass = _read_only(_mass, "mass", "the mass follows the fixtures' density")
    inertia = _read_only(_inertia, "inertia", "the inertia follows the fixtures' shapes and density")

    def _float(column: int, doc: str) -> property:  # noqa: N805 (a class-body helper)
        def get(self: PortBody) -> float:
            return self._f(column)

        def set(self: PortBody, value: Any) -> None:
            w, r, b = self._row()
            w.body_f[r, b, column] = F32(float(value))

        return property(get, set, doc=doc)

    linearDamping = _float(W.BF_LDAMP, "b2Body::GetLinearDamping/SetLinearDamping.")  # noqa: N815
    angularDamping = _float(W.BF_ADAMP, "b2Body::GetAngularDamping/SetAngularDamping.")  # noqa: N815
    gravityScale = _float(W.BF_GSCALE, "b2Body::GetGravityScale/SetGravityScale.")  # noqa: N815
    del _float

    def _type(self) -> int:
        """b2BodyType: 0 static, 1 kinematic, 2 dynamic."""
        w, r, b = self._row()
        return int(w.body_i[r, b, W.BI_TYPE])

    type = _read_only(_type, "type", "a body's type is fixed in the compiled world")  # noqa: A003

    def _flag(flag: int, name: str) -> property:  # noqa: N805 (a class-body helper)
        def get(self: PortBody) -> bool:
            w, r, b = self._row()
            return bool(w.body_i[r, b, W.BI_FLAGS] & flag)

        return property(get, _refusing_setter(name, f"{name} is fixed in the compiled world"))

    bullet = _flag(W.BULLET_FLAG, "bullet")
    active = _flag(W.ACTIVE_FLAG, "active")
    fixedRotation = _flag(W.FIXED_ROTATION_FLAG, "fixedRotation")  # noqa: N815
    del _flag

    massData = _refused("massData", "read mass, inertia and localCenter; the mass follows the fixtures")  # noqa: N815
    contacts = _refused("contacts", "the port keeps contacts in its own rows; " + _ELSEWHERE)
    userData = _refused("userData", "add an attribute of your own to the body instead (body.tag = ...)")  # noqa: N815

    @property
    def fixtures(self) -> list[PortFixture]:
        """The body's fixtures in the order they were made (pybox2d reverses Box2D's newest-first list)."""
        w, r, b = self._row()
        found = []
        f = int(w.body_i[r, b, W.BI_FIXTURES])
        while f >= 0:
            found.append(PortFixture(self._source, f))
            f = int(w.fixture_i[r, f, W.FI_NEXT])
        return found[::-1]

    @property
    def world(self) -> PortWorld:
        return PortWorld(self._episode_source())

    # -- forces ----------------------------------------------------------------------------------------------

    def ApplyForceToCenter(self, force: Any, wake: bool) -> None:  # noqa: N802
        fx, fy = float32_pair(force, "force")
        w, r, b = self._row()
        W.apply_force_to_center(w, r, b, fx, fy, bool(wake))

    def ApplyForce(self, force: Any, point: Any, wake: bool) -> None:  # noqa: N802
        fx, fy = float32_pair(force, "force")
        px, py = float32_pair(point, "point")
        w, r, b = self._row()
        W.apply_force(w, r, b, fx, fy, px, py, bool(wake))

    def ApplyTorque(self, torque: Any, wake: bool) -> None:  # noqa: N802
        w, r, b = self._row()
        W.apply_torque(w, r, b, F32(float(torque)), bool(wake))

    def ApplyLinearImpulse(self, impulse: Any, point: Any, wake: bool) -> None:  # noqa: N802
        ix, iy = float32_pair(impulse, "impulse")
        px, py = float32_pair(point, "point")
        w, r, b = self._row()
        W.apply_linear_impulse(w, r, b, ix, iy, px, py, bool(wake))

    def ApplyAngularImpulse(self, impulse: Any, wake: bool) -> None:  # noqa: N802
        w, r, b = self._row()
        W.apply_angular_impulse(w, r, b, F32(float(impulse)), bool(wake))

    # -- identity --------------------------------------------------------------------------------------------

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, PortBody)
            and other._source is self._source
            and other._index == self._index
            and other._generation == self._generation
        )

    def __hash__(self) -> int:
        return hash((id(self._source), self._index))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._index}>"


class GroundedBody(PortBody):
    """A body whose ``ground_contact`` is the port's contact listener's flag: true after a contact of the body
    began, false after one ended (gymnasium's ``GroundContactDetector`` on a leg). It may be assigned, as
    gymnasium's attribute: the listener sets it again at the next contact that begins or ends."""

    @property
    def ground_contact(self) -> bool:
        w, r, b = self._row()
        return bool(w.body_i[r, b, W.BI_TOUCH])

    @ground_contact.setter
    def ground_contact(self, value: Any) -> None:
        w, r, b = self._row()
        w.body_i[r, b, W.BI_TOUCH] = 1 if value else 0


class FixedList(ReadOnlyList):
    """A list of the compiled world's objects (LunarLander's ``legs`` and ``particles``, BipedalWalker's ``terrain``,
    ``legs``, ``joints``, ``lidar``) that refuses changes: the kernels keep their own lists, which a change here
    would not reach."""

    def __init__(self, items: Iterable[Any] = (), name: str = "") -> None:
        super().__init__(
            items,
            f"{name} lists the compiled world's objects, which its kernels keep: it cannot be changed (copy it "
            f"with list(...) for a list of your own; change an object through its attributes).",
        )
        self._name = name

    def __reduce__(self) -> tuple[type, tuple[list[Any], str]]:
        return FixedList, (list(self), self._name)  # not list's, which fills the new list with append/extend


class PortWorld(EpisodeObject):
    """The b2World of a port world row: ``gravity`` (read and write, as ``SetGravity``), ``bodies`` (in the order
    they were made, as pybox2d lists them), ``bodyCount``, ``contactCount``, ``jointCount``. The env's kernels build, step and tear it down:
    creating, destroying or stepping from Python is refused. Where gymnasium makes a new world at each reset
    (``PortSource._port_world_per_episode``), a world held across a reset refuses (``EpisodeObject``)."""

    __slots__ = ("_source", "_generation")

    def __init__(self, source: PortSource) -> None:
        object.__setattr__(self, "_source", source)
        object.__setattr__(self, "_generation", source._port_generation if source._port_world_per_episode else None)

    def _row(self) -> tuple[W.World, int]:
        return self._episode_source()._port_world()

    @property
    def gravity(self) -> Vec2:
        w, r = self._row()
        return Vec2(w.world_f[r, W.WF_GX], w.world_f[r, W.WF_GY])

    @gravity.setter
    def gravity(self, value: Any) -> None:
        gx, gy = float32_pair(value, "gravity")
        w, r = self._row()
        w.world_f[r, W.WF_GX] = gx
        w.world_f[r, W.WF_GY] = gy

    @property
    def bodies(self) -> list[PortBody]:
        w, r = self._row()
        found = []
        b = int(w.world_i[r, W.WI_BODY_LIST])
        while b >= 0:
            found.append(self._source._port_body(b))
            b = int(w.body_i[r, b, W.BI_NEXT])
        return found[::-1]

    def _count(column: int) -> property:  # noqa: N805 (a class-body helper)
        def get(self: PortWorld) -> int:
            w, r = self._row()
            return int(w.world_i[r, column])

        return property(get)

    bodyCount = _count(W.WI_BODY_COUNT)  # noqa: N815
    contactCount = _count(W.WI_CONTACT_COUNT)  # noqa: N815
    jointCount = _count(W.WI_JOINT_COUNT)  # noqa: N815
    del _count

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(
            f"The compiled world serves gravity, bodies and the counts, not {name!r}: the env's kernels create, "
            f"step and destroy its bodies ({_ELSEWHERE})."
        )

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(getattr(type(self), name, None), property):
            object.__setattr__(self, name, value)
            return
        raise AttributeError(f"The compiled world has no settable {name!r} (it serves gravity; {_ELSEWHERE}).")

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, PortWorld) and other._source is self._source and other._generation == self._generation

    def __hash__(self) -> int:
        return hash(id(self._source))

    def __repr__(self) -> str:
        return f"<PortWorld gravity={self.gravity!r} bodies={self.bodyCount}>"


class RevoluteJoint(_PortObject):
    """A b2RevoluteJoint of a port world, read and written where the kernels keep it, as pybox2d's: ``angle`` and
    ``speed`` (GetJointAngle/GetJointSpeed, float32), ``motorSpeed`` and ``maxMotorTorque`` (SetMotorSpeed and
    SetMaxMotorTorque wake both bodies), ``motorEnabled``, ``limitEnabled``, ``lowerLimit``/``upperLimit``/``limits``,
    ``bodyA``/``bodyB``, ``anchorA``/``anchorB`` (world points), ``GetMotorTorque(inv_dt)``."""

    def _row(self) -> tuple[W.World, int, int]:
        w, r = self._world()
        j = self._index
        if not w.joint_i[r, j, W.JI_ALIVE]:
            raise ReferenceError(f"joint {j} was destroyed (a joint of an earlier episode)")
        return w, r, j

    def _bodies(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The joint's float row and its two bodies' float rows."""
        w, r, j = self._row()
        return w.joint_f[r, j], w.body_f[r, w.joint_i[r, j, W.JI_BODYA]], w.body_f[r, w.joint_i[r, j, W.JI_BODYB]]

    @property
    def angle(self) -> float:
        """b2RevoluteJoint::GetJointAngle: bodyB's angle - bodyA's - the reference angle (float32)."""
        jf, a, b = self._bodies()
        return float((b[W.BF_A] - a[W.BF_A]) - jf[W.JF_REF])

    @property
    def speed(self) -> float:
        """b2RevoluteJoint::GetJointSpeed: bodyB's angular velocity - bodyA's (float32)."""
        _, a, b = self._bodies()
        return float(b[W.BF_W] - a[W.BF_W])

    @property
    def motorSpeed(self) -> float:  # noqa: N802 (pybox2d's names, here and below)
        """The motor's target speed (rad/s); setting it is ``SetMotorSpeed`` (wakes both bodies)."""
        w, r, j = self._row()
        return float(w.joint_f[r, j, W.JF_MOTOR_SPEED])

    @motorSpeed.setter
    def motorSpeed(self, value: Any) -> None:  # noqa: N802
        w, r, j = self._row()
        revolute_joint.set_motor_speed(w, r, j, F32(float(value)))

    @property
    def maxMotorTorque(self) -> float:  # noqa: N802
        """The motor's torque limit (N m); setting it is ``SetMaxMotorTorque`` (wakes both bodies). (pybox2d's
        property cannot be read; this one can.)"""
        w, r, j = self._row()
        return float(w.joint_f[r, j, W.JF_MAX_TORQUE])

    @maxMotorTorque.setter
    def maxMotorTorque(self, value: Any) -> None:  # noqa: N802
        w, r, j = self._row()
        revolute_joint.set_max_motor_torque(w, r, j, F32(float(value)))

    @property
    def motorEnabled(self) -> bool:  # noqa: N802
        """Whether the motor drives the joint; setting it is ``EnableMotor`` (wakes both bodies)."""
        w, r, j = self._row()
        return bool(w.joint_i[r, j, W.JI_MOTOR_ON])

    @motorEnabled.setter
    def motorEnabled(self, value: Any) -> None:  # noqa: N802
        w, r, j = self._row()
        revolute_joint.enable_motor(w, r, j, bool(value))

    @property
    def limitEnabled(self) -> bool:  # noqa: N802
        """Whether the angle limits hold; setting it is ``EnableLimit``."""
        w, r, j = self._row()
        return bool(w.joint_i[r, j, W.JI_LIMIT_ON])

    @limitEnabled.setter
    def limitEnabled(self, value: Any) -> None:  # noqa: N802
        w, r, j = self._row()
        revolute_joint.enable_limit(w, r, j, bool(value))

    @property
    def limits(self) -> tuple[float, float]:
        """``(lowerLimit, upperLimit)`` (radians); setting it is ``SetLimits(lower, upper)``."""
        w, r, j = self._row()
        return float(w.joint_f[r, j, W.JF_LOWER]), float(w.joint_f[r, j, W.JF_UPPER])

    @limits.setter
    def limits(self, value: Any) -> None:
        lower, upper = float32_pair(value, "limits")
        if not lower <= upper:
            raise ValueError(f"A revolute joint's limits are (lower, upper) with lower <= upper, got {value!r}")
        w, r, j = self._row()
        revolute_joint.set_limits(w, r, j, lower, upper)

    @property
    def lowerLimit(self) -> float:  # noqa: N802
        """The lower angle limit; setting it is ``SetLimits(value, upperLimit)``."""
        return self.limits[0]

    @lowerLimit.setter
    def lowerLimit(self, value: Any) -> None:  # noqa: N802
        self.limits = (value, self.upperLimit)

    @property
    def upperLimit(self) -> float:  # noqa: N802
        """The upper angle limit; setting it is ``SetLimits(lowerLimit, value)``."""
        return self.limits[1]

    @upperLimit.setter
    def upperLimit(self, value: Any) -> None:  # noqa: N802
        self.limits = (self.lowerLimit, value)

    @property
    def bodyA(self) -> PortBody:  # noqa: N802
        w, r, j = self._row()
        return self._source._port_body(int(w.joint_i[r, j, W.JI_BODYA]))

    @property
    def bodyB(self) -> PortBody:  # noqa: N802
        w, r, j = self._row()
        return self._source._port_body(int(w.joint_i[r, j, W.JI_BODYB]))

    @property
    def anchorA(self) -> Vec2:  # noqa: N802
        """b2RevoluteJoint::GetAnchorA: bodyA's world point of the local anchor."""
        w, r, j = self._row()
        return self.bodyA.GetWorldPoint((w.joint_f[r, j, W.JF_LAX], w.joint_f[r, j, W.JF_LAY]))

    @property
    def anchorB(self) -> Vec2:  # noqa: N802
        """b2RevoluteJoint::GetAnchorB: bodyB's world point of the local anchor."""
        w, r, j = self._row()
        return self.bodyB.GetWorldPoint((w.joint_f[r, j, W.JF_LBX], w.joint_f[r, j, W.JF_LBY]))

    def GetMotorTorque(self, inv_dt: float) -> float:  # noqa: N802,N803
        """b2RevoluteJoint::GetMotorTorque: the motor's impulse of the last step times ``inv_dt``."""
        w, r, j = self._row()
        return float(F32(inv_dt) * w.joint_f[r, j, W.JF_MOTOR_IMP])

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(
            f"The compiled world's revolute joint serves angle, speed, the motor and the limits, its bodies and "
            f"anchors, not {name!r} ({_ELSEWHERE})."
        )

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("_source", "_index", "_generation") or isinstance(getattr(type(self), name, None), property):
            object.__setattr__(self, name, value)
            return
        raise AttributeError(f"The compiled world's revolute joint has no settable {name!r} ({_ELSEWHERE}).")

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, RevoluteJoint)
            and other._source is self._source
            and other._index == self._index
            and other._generation == self._generation
        )

    def __hash__(self) -> int:
        return hash((id(self._source), self._index))

    def __repr__(self) -> str:
        return f"<RevoluteJoint {self._index}>"


def compile_port_calls(source: PortSource) -> None:
    """Makes once each call the objects make into the port's compiled functions, on ``source``'s world: its first
    dynamic body is moved, pushed and woken, its first joint re-motored and re-limited, each to the value it has
    (a throwaway environment's: ``nbgym warmup``'s, whose caching of them is the point). A user's first
    ``body.position = ...`` or ``ApplyForce`` then loads its function from the cache in milliseconds instead of
    compiling it for half a second."""
    w, r = source._port_world()
    for body in PortWorld(source).bodies:
        if body.type == 2:  # b2_dynamicBody: a static body's forces and velocities are ignored before the kernels
            body.position = body.position
            body.linearVelocity = body.linearVelocity
            body.angularVelocity = body.angularVelocity
            body.awake = body.awake
            body.ApplyForceToCenter((0.0, 0.0), False)
            body.ApplyForce((0.0, 0.0), body.worldCenter, False)
            body.ApplyTorque(0.0, False)
            body.ApplyLinearImpulse((0.0, 0.0), body.worldCenter, False)
            body.ApplyAngularImpulse(0.0, False)
            break
    alive = np.flatnonzero(w.joint_i[r, :, W.JI_ALIVE])
    if alive.size:
        joint = RevoluteJoint(source, int(alive[0]))
        joint.motorSpeed = joint.motorSpeed
        joint.maxMotorTorque = joint.maxMotorTorque
        joint.motorEnabled = joint.motorEnabled
        joint.limitEnabled = joint.limitEnabled
        joint.limits = joint.limits
