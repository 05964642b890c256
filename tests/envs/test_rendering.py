"""Rendering of nbgym's environments against gymnasium 1.4.0's: pixel-identical classic-control frames,
toy-text frames of the same shape and dtype that follow the state, ANSI text, vector frames, human mode.

Headless: SDL's dummy video driver (set before pygame is imported).
"""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"

import subprocess
import sys
import types
import warnings

import gymnasium
import numpy as np
import pygame
import pytest

import nbgym
from nbgym import error
from nbgym.engine._render import import_pygame, render_frame
from nbgym.envs._render import _assets

CLASSIC = ["CartPole-v1", "MountainCar-v0", "MountainCarContinuous-v0", "Acrobot-v1"]
TOY_TEXT = [
    ("FrozenLake-v1", {}),
    ("FrozenLake8x8-v1", {}),
    ("FrozenLake-v1", {"desc": ["SFFFFH", "FHFHFF", "FFFHGF"]}),
    ("FrozenLake-v1", {"map_name": None, "desc": ["SFFFFFFFFH"] * 9 + ["FFFFFFFFFG"]}),  # 51-pixel cells
    ("Taxi-v4", {}),
    ("CliffWalking-v1", {}),
    ("Blackjack-v1", {}),
]
ANSI = [("FrozenLake-v1", {}), ("FrozenLake8x8-v1", {}), ("Taxi-v4", {}), ("CliffWalking-v1", {})]


def assert_same_frame(ours: np.ndarray, theirs: np.ndarray, where: str) -> None:
    assert type(ours) is np.ndarray and ours.dtype == theirs.dtype == np.uint8, where
    assert ours.shape == theirs.shape, f"{where}: shape {ours.shape} != {theirs.shape}"
    different = np.any(ours != theirs, axis=-1)
    assert not different.any(), f"{where}: {different.sum()} pixels differ, first at {np.argwhere(different)[0]}"


def run_pair(env_id: str, seed: int, steps: int, kwargs: dict | None = None, **make_kwargs):
    """Steps nbgym's and gymnasium's env with the same seed and random actions, yielding both after every reset/step."""
    kwargs = kwargs or {}
    ours = nbgym.make(env_id, render_mode="rgb_array", **kwargs, **make_kwargs)
    theirs = gymnasium.make(env_id, render_mode="rgb_array", **kwargs, **make_kwargs)
    ours.reset(seed=seed)
    theirs.reset(seed=seed)
    theirs.action_space.seed(seed)
    yield ours, theirs
    for _ in range(steps):
        action = theirs.action_space.sample()
        *_, terminated, truncated, _ = ours.step(action)
        *_, their_terminated, their_truncated, _ = theirs.step(action)
        assert (terminated, truncated) == (their_terminated, their_truncated)
        yield ours, theirs
        if terminated or truncated:
            ours.reset()
            theirs.reset()
            yield ours, theirs
    ours.close()
    theirs.close()


@pytest.mark.parametrize("env_id", CLASSIC)
@pytest.mark.parametrize("seed", [0, 7])
def test_classic_control_frames_are_gymnasiums(env_id, seed):
    """Every frame of an episode (and the next, after a termination) is gymnasium's, pixel for pixel."""
    for t, (ours, theirs) in enumerate(run_pair(env_id, seed, 50)):
        assert_same_frame(ours.render(), theirs.render(), f"{env_id} seed {seed} frame {t}")


def test_cartpole_options_and_attribute_changes_draw_as_gymnasium():
    """Reset options move the cart far off centre; a changed pole length and track width redraw the scale."""
    ours = nbgym.make("CartPole-v1", render_mode="rgb_array").unwrapped
    theirs = gymnasium.make("CartPole-v1", render_mode="rgb_array").unwrapped
    for env in (ours, theirs):
        env.length = 0.9
        env.x_threshold = 3.0
        env.reset(seed=3, options={"low": -2.0, "high": 2.0})
    assert_same_frame(ours.render(), theirs.render(), "changed CartPole")


def _patch_gymnasium_arrow(monkeypatch) -> None:
    """Makes gymnasium's Pendulum load nbgym's arrow image instead of its own."""
    load = pygame.image.load
    ours = str(_assets.ASSETS / "clockwise.png")
    monkeypatch.setattr(pygame.image, "load", lambda name: load(ours if str(name).endswith("clockwise.png") else name))


def test_pendulum_frames_are_gymnasiums_with_the_same_arrow(monkeypatch):
    """With gymnasium drawing nbgym's arrow image, Pendulum's frames are gymnasium's, pixel for pixel: the
    arrow is scaled, flipped and placed as gymnasium does it. (The stand-in env carries the torque and
    its kind in the state columns where the Pendulum kernel keeps them.)"""
    _patch_gymnasium_arrow(monkeypatch)
    pendulum = nbgym.make("Pendulum-v1").unwrapped
    theirs = gymnasium.make("Pendulum-v1", render_mode="rgb_array")
    theirs.reset(seed=5)
    theirs.action_space.seed(5)
    stand_in = types.SimpleNamespace(
        renderer=pendulum.renderer, metadata=pendulum.metadata, render_mode="rgb_array", _render_state=None
    )
    for t in range(60):
        last_u = theirs.unwrapped.last_u
        torque = np.nan if last_u is None else float(last_u)
        kind = -1.0 if last_u is None else float(isinstance(last_u, np.float32))  # Pendulum's torque kind column
        stand_in._batch = types.SimpleNamespace(state=np.array([[*theirs.unwrapped.state, torque, kind]]))
        assert_same_frame(render_frame(stand_in, 0), theirs.render(), f"Pendulum frame {t}")
        action = theirs.action_space.sample() * np.float32(
            1.5
        )  # beyond max_torque too: the arrow of the clipped torque
        theirs.step(action)


def test_pendulum_env_draws_gymnasiums_frames(monkeypatch):
    """The Pendulum env itself: frames after a reset are gymnasium's; after steps too, arrow included."""
    _patch_gymnasium_arrow(monkeypatch)
    for t, (ours, theirs) in enumerate(run_pair("Pendulum-v1", 2, 60)):
        assert_same_frame(ours.render(), theirs.render(), f"Pendulum frame {t}")


def test_arrow_asset_is_what_its_maker_draws():
    """The shipped clockwise.png is the image `python -m nbgym.envs._render._assets` draws."""
    shipped = pygame.image.load(str(_assets.ASSETS / "clockwise.png"))
    drawn = _assets.clockwise_arrow()
    assert shipped.get_size() == drawn.get_size()
    np.testing.assert_array_equal(pygame.surfarray.array3d(shipped), pygame.surfarray.array3d(drawn))
    np.testing.assert_array_equal(pygame.surfarray.array_alpha(shipped), pygame.surfarray.array_alpha(drawn))
    assert pygame.surfarray.array_alpha(drawn).max() == 255 and pygame.surfarray.array_alpha(drawn).min() == 0


@pytest.mark.parametrize("env_id, kwargs", TOY_TEXT)
def test_toy_text_frames_have_gymnasiums_shape_and_follow_the_state(env_id, kwargs):
    """Frames have gymnasium's shape and dtype; equal states draw equal frames, and a changed observation
    changes the frame."""
    seen: dict = {}
    changes = 0
    previous = None
    for t, (ours, theirs) in enumerate(run_pair(env_id, 3, 25, kwargs)):
        frame, their_frame = ours.render(), theirs.render()
        assert type(frame) is np.ndarray and frame.dtype == their_frame.dtype == np.uint8
        assert frame.shape == their_frame.shape, f"{env_id} frame {t}"
        # What the frame shows: the observation, and Blackjack's dealer card.
        key = repr(ours.unwrapped._batch.obs[0].tolist())
        if env_id == "Blackjack-v1":
            key += ours.unwrapped.dealer_top_card_value_str + ours.unwrapped.dealer_top_card_suit
        if key in seen and env_id != "Taxi-v4":  # Taxi's heading also depends on earlier moves
            np.testing.assert_array_equal(frame, seen[key], err_msg=f"{env_id} frame {t}: same state, other frame")
        seen[key] = frame
        if previous is not None and previous[0] != key:
            changes += 1
            assert not np.array_equal(frame, previous[1]), f"{env_id} frame {t}: the state changed, the frame did not"
        previous = (key, frame)
    assert changes > 0


def test_toy_text_sprites_sit_where_the_state_says():
    """The walker's cell holds the walker: FrozenLake's cells differ from the plain ice only where things stand."""
    env = nbgym.make("FrozenLake-v1", is_slippery=False, render_mode="rgb_array")
    env.reset(seed=0)
    start = env.render()
    env.step(2)  # right: from cell 0 to cell 1
    moved = env.render()
    cell = 64
    changed = np.argwhere(np.any(start != moved, axis=-1))
    assert changed[:, 0].max() < cell and changed[:, 1].max() < 2 * cell  # only cells 0 and 1 of the top row
    assert np.any(start[:cell, cell : 2 * cell] != moved[:cell, cell : 2 * cell])


def test_blackjack_draws_the_dealers_card_and_usable_ace():
    """The dealer's rank/suit and the usable-ace label change the frame as the observation says."""
    env = nbgym.make("Blackjack-v1", render_mode="rgb_array")
    frames = {}
    for seed in range(60):
        obs, _ = env.reset(seed=seed)
        frames.setdefault(
            (obs[2], env.unwrapped.dealer_top_card_value_str + env.unwrapped.dealer_top_card_suit), env.render()
        )
    labels = [frame[328:348] for (usable, _), frame in frames.items()]
    with_ace = [(frame[328:348] != frame[0, 0]).any() for (usable, _), frame in frames.items() if usable]
    without_ace = [(frame[328:348] != frame[0, 0]).any() for (usable, _), frame in frames.items() if not usable]
    assert with_ace and without_ace and all(with_ace) and not any(without_ace), len(labels)
    cards = {card: frame[72:184, 96:176] for (_, card), frame in frames.items()}
    assert len({card.tobytes() for card in cards.values()}) == len(cards)


@pytest.mark.parametrize("env_id, kwargs", ANSI)
def test_ansi_text_is_gymnasiums(env_id, kwargs):
    ours = nbgym.make(env_id, render_mode="ansi", **kwargs)
    theirs = gymnasium.make(env_id, render_mode="ansi", **kwargs)
    ours.reset(seed=4)
    theirs.reset(seed=4)
    theirs.action_space.seed(4)
    for t in range(30):
        assert ours.render() == theirs.render(), f"{env_id} step {t}"
        action = theirs.action_space.sample()
        if any(ours.step(action)[2:4]):
            ours.reset()
            theirs.step(action)
            theirs.reset()
        else:
            theirs.step(action)


@pytest.mark.parametrize(
    "env_id", ["CartPole-v1", "Acrobot-v1", "MountainCarContinuous-v0", "FrozenLake-v1", "Taxi-v4", "Blackjack-v1"]
)
@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_vector_frames_are_gymnasium_sync_frames(env_id, mode):
    """A compiled vector env renders a tuple of its sub-environments' frames, as gymnasium's SyncVectorEnv:
    pixel-identical for classic control, of the same shape and dtype for toy text."""
    num_envs = 3
    ours = nbgym.make_vec(env_id, num_envs, render_mode="rgb_array", autoreset_mode=mode)
    theirs = gymnasium.make_vec(
        env_id, num_envs, vectorization_mode="sync", render_mode="rgb_array", vector_kwargs={"autoreset_mode": mode}
    )
    assert ours.render_mode == "rgb_array" and "rgb_array" in ours.metadata["render_modes"]
    ours.reset(seed=11)
    theirs.reset(seed=11)
    theirs.action_space.seed(11)
    pixel_identical = env_id in ("CartPole-v1", "Acrobot-v1", "MountainCarContinuous-v0")
    for t in range(25):
        frames, their_frames = ours.render(), theirs.render()
        # gymnasium's own CartPoleVectorEnv, which nbgym's reproduces, returns a list; its sync env a tuple
        assert type(frames) is (list if env_id == "CartPole-v1" else tuple)
        assert len(frames) == len(their_frames) == num_envs
        for i, (frame, their_frame) in enumerate(zip(frames, their_frames)):
            if pixel_identical:
                assert_same_frame(frame, their_frame, f"{env_id} {mode} step {t} env {i}")
            else:
                assert frame.shape == their_frame.shape and frame.dtype == their_frame.dtype
        actions = theirs.action_space.sample()
        ours.step(actions)
        theirs.step(actions)
    ours.close()
    theirs.close()


def test_vector_frames_follow_each_sub_environment():
    """Sub-environments in different states draw different frames; the single env draws the same frame."""
    vector = nbgym.make_vec("CartPole-v1", 2, render_mode="rgb_array")
    vector.reset(seed=[1, 2])
    single = nbgym.make("CartPole-v1", render_mode="rgb_array")
    single.reset(seed=2)
    frames = vector.render()
    theirs = gymnasium.make_vec("CartPole-v1", 2, render_mode="rgb_array")
    theirs.reset(seed=1)  # gymnasium's CartPoleVectorEnv takes one seed
    assert type(frames) is type(theirs.render()) is list  # was a tuple
    first, second = frames
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(second, single.render())


def test_vector_ansi_is_a_tuple_of_gymnasiums_texts():
    ours = nbgym.make_vec("Taxi-v4", 2, render_mode="ansi")
    theirs = gymnasium.make_vec("Taxi-v4", 2, vectorization_mode="sync", render_mode="ansi")
    ours.reset(seed=0)
    theirs.reset(seed=0)
    assert ours.render() == theirs.render()


@pytest.mark.parametrize(
    "env_id",
    [
        "CartPole-v1",
        "Pendulum-v1",
        "Acrobot-v1",
        "MountainCar-v0",
        "FrozenLake-v1",
        "Taxi-v4",
        "CliffWalking-v1",
        "Blackjack-v1",
    ],
)
def test_human_mode_draws_into_the_window(env_id):
    """ "human": reset and step draw into a window of the frame's size; render() returns None; close() shuts it."""
    frame_env = nbgym.make(env_id, render_mode="rgb_array")
    frame_env.reset(seed=0)
    size = frame_env.render().shape[1::-1]
    env = nbgym.make(env_id, render_mode="human")
    env.unwrapped.metadata = {**env.unwrapped.metadata, "render_fps": 1000}  # keep the test fast
    env.reset(seed=0)
    window = pygame.display.get_surface()
    assert window is not None and window.get_size() == size
    first = pygame.surfarray.array3d(window).transpose(1, 0, 2)
    np.testing.assert_array_equal(first, frame_env.render())  # the window shows the rgb_array frame
    env.step(env.action_space.sample())
    assert env.render() is None
    env.close()
    assert not pygame.display.get_init()


def test_render_without_mode_warns_and_bad_vector_modes_raise():
    env = nbgym.make("CartPole-v1", disable_env_checker=True).unwrapped
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="You are calling render method without specifying any render mode"):
        assert env.render() is None
    # A single env in a mode it does not list does what gymnasium's does (tests/test_make_vec_dropin.py); a
    # vector env that no gymnasium class has the mode of refuses it.
    vector = nbgym.make_vec("Pendulum-v1", 2, vectorization_mode="vector_entry_point", render_mode="ansi")
    vector.reset(seed=0)
    with pytest.raises(error.Error, match="cannot render in render_mode='ansi'"):
        vector.render()


def test_missing_pygame_names_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "pygame", None)
    with pytest.raises(error.DependencyNotInstalled, match=r'pip install "nbgym\[render\]"'):
        import_pygame()


def test_stepping_without_rendering_does_not_import_pygame():
    """render_mode=None never touches the rendering package (a fresh interpreter imports neither)."""

    code = (
        "import sys, nbgym\n"
        "env = nbgym.make('CartPole-v1'); env.reset(seed=0)\n"
        "for _ in range(5): env.step(0)\n"
        "v = nbgym.make_vec('FrozenLake-v1', 2); v.reset(seed=0); v.step(v.action_space.sample())\n"
        "print('pygame' in sys.modules, 'nbgym.envs._render' in sys.modules)\n"
    )
    with warnings.catch_warnings():
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_rendering_leaves_the_process_signal_handling_alone():
    """SDL's own SIGTERM handler would be inherited by forked async workers and stop SIGTERM from ending them."""

    code = (
        "import os, nbgym\n"
        "os.environ.pop('SDL_NO_SIGNAL_HANDLERS', None)\n"
        "env = nbgym.make('CartPole-v1', render_mode='rgb_array'); env.reset(seed=0); env.render()\n"
        "caught = int([l for l in open('/proc/self/status') if l.startswith('SigCgt')][0].split()[1], 16)\n"
        "print(caught >> 14 & 1)\n"
    )
    environment = {k: v for k, v in os.environ.items() if k != "SDL_NO_SIGNAL_HANDLERS"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, check=True)
    assert result.stdout.strip().splitlines()[-1] == "0"


@pytest.mark.parametrize(
    ("env_id", "names"),
    [
        ("CartPole-v1", ("screen_width", "screen_height")),
        ("MountainCar-v0", ("screen_width", "screen_height")),
        ("MountainCarContinuous-v0", ("screen_width", "screen_height")),
        ("Pendulum-v1", ("screen_dim",)),
        ("Acrobot-v1", ("SCREEN_DIM",)),
        ("FrozenLake8x8-v1", ("window_size", "cell_size")),
        ("CliffWalking-v1", ("window_size", "cell_size")),
    ],
)
def test_frame_size_attributes_are_gymnasiums_and_refuse_another_size(env_id, names):
    """gymnasium's renderers size their frames by these attributes: nbgym's were missing, so an assignment made a new
    attribute that no frame followed. They read gymnasium's values and refuse another (the same one is taken)."""
    ours, theirs = nbgym.make(env_id).unwrapped, gymnasium.make(env_id).unwrapped
    for name in names:
        assert getattr(ours, name) == getattr(theirs, name), name
        setattr(ours, name, getattr(theirs, name))
        with pytest.raises(AttributeError, match="resize the frames render"):
            setattr(ours, name, 7)


WINDOW_ATTRIBUTES = [
    ("CartPole-v1", "screen", "isopen"),
    ("MountainCar-v0", "screen", "isopen"),
    ("MountainCarContinuous-v0", "screen", "isopen"),
    ("Pendulum-v1", "screen", "isopen"),
    ("Acrobot-v1", "screen", "isopen"),
    ("FrozenLake-v1", "window_surface", None),
    ("CliffWalking-v1", "window_surface", None),
    ("Taxi-v4", "window", None),
]


@pytest.mark.parametrize(("env_id", "surface_name", "flag"), WINDOW_ATTRIBUTES)
def test_window_surface_clock_and_open_flag_are_gymnasiums(env_id, surface_name, flag):
    """gymnasium's window attributes: ``None`` until the first frame, then its surface (of the frame's size) and a
    clock; the open flag true until a close after a frame. Assigned: ``None`` makes new ones at the next frame, a
    surface of the frame's size is drawn on; another value is refused."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = nbgym.make(env_id, render_mode="rgb_array").unwrapped
        theirs = gymnasium.make(env_id, render_mode="rgb_array").unwrapped
    for env in (ours, theirs):
        assert getattr(env, surface_name) is None and env.clock is None
        assert flag is None or getattr(env, flag) is True
        env.reset(seed=0)
        env.render()
    for env in (ours, theirs):
        surface = getattr(env, surface_name)
        assert isinstance(surface, pygame.Surface) and isinstance(env.clock, type(theirs.clock))
    assert getattr(ours, surface_name).get_size() == getattr(theirs, surface_name).get_size()
    first, frame = getattr(ours, surface_name), ours.render()
    setattr(ours, surface_name, None)
    ours.clock = None
    assert getattr(ours, surface_name) is None and ours.clock is None
    np.testing.assert_array_equal(ours.render(), frame)
    assert getattr(ours, surface_name) is not first and ours.clock is not None
    own = pygame.Surface(first.get_size())
    setattr(ours, surface_name, own)
    frame = ours.render()
    assert getattr(ours, surface_name) is own
    np.testing.assert_array_equal(frame, np.transpose(pygame.surfarray.array3d(own), (1, 0, 2)))
    with pytest.raises(TypeError, match=f"{surface_name} of .* must be a pygame.Surface"):
        setattr(ours, surface_name, np.zeros((4, 4, 3), dtype=np.uint8))
    with pytest.raises(ValueError, match="the size its frames are drawn at, got a 3x5 surface"):
        setattr(ours, surface_name, pygame.Surface((3, 5)))
    with pytest.raises(TypeError, match="must be a clock with a tick"):
        ours.clock = 30
    assert getattr(ours, surface_name) is own
    if flag is not None:
        ours.close()
        theirs.close()
        assert getattr(ours, flag) is False and getattr(theirs, flag) is False
        unrendered = nbgym.make(env_id).unwrapped
        unrendered.close()
        assert getattr(unrendered, flag) is True  # no window was open
