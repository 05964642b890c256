"""The process in which ``tests/engine/test_written_values.py`` writes values into env attributes, steps and renders.

It runs the kernels as the test's parent starts it: with ``NUMBA_BOUNDSCHECK=1`` and a kernel cache of its own, so
that an out-of-bounds access raises ``IndexError`` rather than reading or writing another array's memory, and a crash
(a segfault) ends this process only: the parent then fails the example that caused it, naming the attribute and value.

Protocol: the parent writes pickled requests on stdin, each preceded by its length (8 bytes, little endian), and
reads the pickled answers the same way from the file descriptor this process was given as ``argv[1]`` (stdout is
left to whatever the libraries print). A request is a tuple ``(command, *arguments)``:

- ``("attributes", env_id)``: the writable attributes of the env's unwrapped class that hold numbers (see
  ``numeric_attributes``), as ``{name: (kind, shape)}``;
- ``("write", env_id, attribute, value, steps, compare)``: see ``write_and_step``.
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import sys
import traceback
import warnings
from typing import Any

import numpy as np

warnings.simplefilter("ignore")

SEED = 3
HANG = 10
"""Seconds after which gymnasium's run of an example is said to hang."""


class Hang(BaseException):
    """gymnasium's run took more than ``HANG`` seconds."""


def _hang(signum: int, frame: Any) -> None:
    raise Hang


signal.signal(signal.SIGALRM, _hang)
STEPS_BEFORE = 2
NUMBER_TYPES = (bool, int, float, np.bool_, np.integer, np.floating)


def classify(value: Any) -> tuple[str, tuple[int, ...]] | None:
    """What kind of number-holding value ``value`` is: ``("scalar", ())``, ``("array", shape)`` (a numeric numpy array),
    ``("tuple", (n,))`` or ``("list", (n,))`` (of numbers); ``None`` for anything else (bodies, worlds, models)."""
    if value is None or isinstance(value, NUMBER_TYPES):
        return "scalar", ()
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf" and value.size:
        return "array", value.shape
    if type(value) in (tuple, list) and value and all(isinstance(item, NUMBER_TYPES) for item in value):
        return type(value).__name__, (len(value),)
    return None


def writable_properties(cls: type) -> list[str]:
    """The properties with a setter of ``cls`` and its bases (but ``np_random``, which takes a generator)."""
    names: list[str] = []
    for klass in cls.__mro__:
        for name, member in vars(klass).items():
            if isinstance(member, property) and member.fset is not None and name not in names and name != "np_random":
                names.append(name)
    return sorted(names)


class Envs:
    """nbgym's env of an id (and gymnasium's), made anew for each example (a written parameter outlives resets)."""

    def __init__(self) -> None:
        self.ours: dict[str, Any] = {}
        self.theirs: dict[str, Any] = {}

    @staticmethod
    def render_mode(env_id: str) -> str | None:
        import nbgym

        return "rgb_array" if "mujoco" not in str(nbgym.registry[env_id].entry_point) or _mujoco_renders() else None

    def get(self, env_id: str, library: str, fresh: bool = True) -> Any:
        envs = self.ours if library == "nbgym" else self.theirs
        for other in [other for other in envs if fresh or other != env_id]:
            envs.pop(other).close()  # the MuJoCo renderers hold GL contexts
        if env_id not in envs:
            module = __import__(library)
            envs[env_id] = module.make(env_id, render_mode=self.render_mode(env_id))
        return envs[env_id]


_MUJOCO_RENDERS: list[bool] = []


def _mujoco_renders() -> bool:
    """Whether MuJoCo can render here (EGL or OSMesa): its frames are then part of each example."""
    if not _MUJOCO_RENDERS:
        try:
            import mujoco

            mujoco.Renderer(mujoco.MjModel.from_xml_string("<mujoco/>"), 8, 8).close()
            _MUJOCO_RENDERS.append(True)
        except Exception:  # noqa: BLE001 - no GL here: the MuJoCo examples step without frames
            _MUJOCO_RENDERS.append(False)
    return _MUJOCO_RENDERS[0]


def numeric_attributes(envs: Envs, env_id: str) -> dict[str, tuple[str, tuple[int, ...]]]:
    """The env's writable attributes that hold numbers after a reset and a step, with their kinds and shapes."""
    env = envs.get(env_id, "nbgym", fresh=False)
    _start(env, 1)
    found = {}
    for name in writable_properties(type(env.unwrapped)):
        try:
            kind = classify(getattr(env.unwrapped, name))
        except Exception:  # noqa: BLE001, S112 - an attribute that does not exist in this state (wind_idx)
            continue
        if kind is not None:
            found[name] = kind
    return found


def _actions(env: Any, count: int) -> list[Any]:
    space = env.action_space
    space.seed(SEED)
    return [space.sample() for _ in range(count)]


def _start(env: Any, steps: int) -> None:
    env.reset(seed=SEED)
    for action in _actions(env, steps):
        env.step(action)


def snapshot(env: Any) -> bytes:
    """Everything the kernels read of the env (its parameters, state rows and random streams), as bytes."""
    unwrapped = env.unwrapped
    batch = unwrapped._batch
    return pickle.dumps((unwrapped._params, batch.state, batch.pcg, batch.buf, batch.elapsed, batch.flags))


def _failure(stage: str, raised: BaseException) -> dict[str, Any]:
    frames = traceback.extract_tb(raised.__traceback__)
    return {
        "stage": stage,
        "type": type(raised).__name__,
        "message": str(raised)[:500],
        "where": f"{frames[-1].filename}:{frames[-1].lineno}" if frames else "",
        "clear": isinstance(raised, (TypeError, ValueError, OverflowError, AttributeError)),
        "traceback": "".join(traceback.format_exception(raised))[-3000:],
    }


def _run(env: Any, attribute: str, value: Any, steps: int) -> dict[str, Any]:
    """Writes ``value`` (unless ``attribute`` is ``None``), then ``steps`` steps with a frame after each, a reset and a
    step and a frame."""
    try:
        if attribute is not None:
            setattr(env.unwrapped, attribute, value)
    except Exception as raised:  # noqa: BLE001 - reported to the parent
        return _failure("write", raised)
    results = []
    if steps < 0:
        return {"stage": "ok", "results": results}
    actions = _actions(env, steps + 1)
    try:
        for index, action in enumerate(actions):
            if index == steps:
                env.reset()
            obs, reward, terminated, truncated, _ = env.step(action)
            frame = env.render() if env.render_mode else None
            results.append((obs, repr(reward), bool(terminated), bool(truncated), frame))
    except Exception as raised:  # noqa: BLE001
        return {**_failure(f"step {len(results)}", raised), "results": results}
    return {"stage": "ok", "results": results}


class FloatSubclass(float):
    """A subclass of ``float``: a Python float to Python's operators, a float64 to numpy's functions."""


def typed(type_name: str, number: float) -> Any:
    """``number`` as a value of the kind ``type_name`` names (see ``TYPES`` in ``tests/engine/test_written_values.py``):
    a numpy scalar type's name (integers wrap around as numpy's ``astype`` does), ``"0d_<dtype>"`` (a 0-d array),
    ``"1_element"`` (an array of one), ``"float_subclass"``, ``"decimal"`` or ``"str"``."""
    if type_name.startswith("0d_"):
        return np.array(typed(type_name[3:], number))
    if type_name == "1_element":
        return np.array([number])
    if type_name == "float_subclass":
        return FloatSubclass(number)
    if type_name == "decimal":
        import decimal

        return decimal.Decimal(repr(float(number)))
    if type_name == "str":
        return repr(float(number))
    dtype = np.dtype(type_name)
    if dtype.kind in "iu":
        return np.array(int(number)).astype(dtype)[()]
    return dtype.type(number)


def _number(item: Any) -> Any:
    """An item of a spec: a number, or ``("typed", type_name, number)`` (see ``typed``)."""
    if isinstance(item, tuple) and item and item[0] == "typed":
        return typed(item[1], item[2])
    return item


def value_of(spec: tuple, current: Any) -> Any:
    """The value a spec of the test describes, for an attribute whose value is now ``current``: ``("scalar", v)`` is
    ``v``; ``("fill", v)`` an array (or a tuple or list, as ``current``) of ``current``'s shape holding ``v`` in every
    place, ``("one", i, v)`` a copy of ``current`` with ``v`` at ``i``, ``("length", n)`` one of ``n`` zeros. A number
    ``v`` may be ``("typed", type_name, number)``: the number as a value of that kind (``typed``)."""
    kind, *arguments = spec
    if kind == "fill":  # a new object in each place (0-d arrays changed in place would otherwise alias)
        items = [_number(arguments[0]) for _ in range(len(current))]
    arguments = [_number(argument) for argument in arguments]
    if kind == "scalar":
        return arguments[0]
    if kind == "fill":
        pass
    elif kind == "one":
        items = list(current)
        items[arguments[0]] = arguments[1]
    else:
        items = [0.0] * arguments[0]
    if isinstance(current, np.ndarray):
        try:
            return np.array(items, dtype=current.dtype if kind == "length" else None)
        except (TypeError, ValueError, OverflowError):
            return np.array(items, dtype=object)
    return type(current)(items)


def write_and_step(envs: Envs, env_id: str, attribute: str, spec: tuple, steps: int, compare: bool) -> dict[str, Any]:
    """Writes the value of ``spec`` (see ``value_of``) into nbgym's (and, with ``compare``, gymnasium's) ``env_id`` after a seeded reset and
    ``STEPS_BEFORE`` steps, then steps and renders (``_run``).

    Returns:
        ``{"ours": outcome, "theirs": outcome or None, "moved": bool, "after_refusal": outcome or None}``:
        ``moved`` whether a refused write changed what the kernels read, ``after_refusal`` the outcome of stepping
        on after it (a refused write must leave the env as it was).
    """
    theirs = None
    if compare:
        env = envs.get(env_id, "gymnasium")
        _start(env, STEPS_BEFORE)
        if hasattr(env.unwrapped, attribute):  # else nbgym's own attribute: nothing to compare with
            signal.alarm(HANG)
            try:
                theirs = _run(env, attribute, value_of(spec, getattr(env.unwrapped, attribute)), steps)
            except Hang:
                theirs = {"stage": "hangs", "type": "Hang", "message": f"no result in {HANG} s"}
            finally:
                signal.alarm(0)
    ours = envs.get(env_id, "nbgym")
    _start(ours, STEPS_BEFORE)
    before = snapshot(ours)
    value = value_of(spec, getattr(ours.unwrapped, attribute))
    # where gymnasium's own step loops for ever (Acrobot's angle wrapping of a 1e30 torque), nbgym's write only
    outcome = _run(ours, attribute, value, -1 if theirs and theirs["stage"] == "hangs" else steps)
    answer: dict[str, Any] = {"ours": outcome, "theirs": theirs, "moved": False, "after_refusal": None}
    if outcome["stage"] == "write":
        answer["moved"] = snapshot(ours) != before
        answer["after_refusal"] = _run(ours, None, None, 1)
    return answer


def _draw_gymnasium_with_nbgyms_images() -> None:
    """nbgym draws its own images where gymnasium's are not shipped (Pendulum's arrow; tests/envs/test_rendering.py
    checks the rest of those frames against gymnasium's drawing nbgym's image): gymnasium's Pendulum here loads nbgym's
    arrow, so that frames compare pixel for pixel."""
    import pygame

    from nbgym.envs._render import _assets

    load, ours = pygame.image.load, str(_assets.ASSETS / "clockwise.png")
    pygame.image.load = lambda name, *rest: load(ours if str(name).endswith("clockwise.png") else name, *rest)


def main() -> None:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    _draw_gymnasium_with_nbgyms_images()
    answers = os.fdopen(int(sys.argv[1]), "wb")
    requests = sys.stdin.buffer
    envs = Envs()
    while True:
        header = requests.read(8)
        if len(header) < 8:
            return
        command, *arguments = pickle.loads(requests.read(struct.unpack("<Q", header)[0]))
        try:
            if command == "attributes":
                answer: Any = numeric_attributes(envs, *arguments)
            else:
                answer = write_and_step(envs, *arguments)
        except Exception as raised:  # noqa: BLE001 - the test's own failure, reported to the parent
            answer = {"error": "".join(traceback.format_exception(raised))}
        data = pickle.dumps(answer)
        answers.write(struct.pack("<Q", len(data)) + data)
        answers.flush()


if __name__ == "__main__":
    main()
