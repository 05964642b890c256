"""AtariPreprocessing against gymnasium's, over a small Atari-like environment (ale-py is not a test
dependency): the same frames, lives and episode ends through both wrappers give identical results."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import nbgym
from nbgym import error
from nbgym.wrappers import AtariPreprocessing

HEIGHT, WIDTH = 210, 160


class FakeALE:
    """The part of ale-py's ALEInterface that the wrapper reads: lives and the current screen."""

    def __init__(self, env):
        self.env = env

    def lives(self) -> int:
        return self.env.num_lives

    def getScreenRGB(self, out: np.ndarray) -> None:
        out[...] = self.env.frame

    def getScreenGrayscale(self, out: np.ndarray) -> None:
        out[...] = (self.env.frame.astype(np.uint16).sum(axis=2) // 3).astype(np.uint8)


def fake_atari_env(library, reward_type=float, frameskip: int = 1, first_action: str = "NOOP"):
    """An Atari-like environment of ``library`` (nbgym or gymnasium): random RGB frames of Atari's size from
    its ``np_random``, lives lost and episodes ended at random, rewards of ``reward_type``."""

    class FakeAtariEnv(library.Env):
        metadata = {"render_modes": []}

        def __init__(self):
            self.observation_space = library.spaces.Box(0, 255, (HEIGHT, WIDTH, 3), np.uint8)
            self.action_space = library.spaces.Discrete(4)
            self._frameskip = frameskip
            self.ale = FakeALE(self)
            self.frame = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
            self.num_lives = 3

        def get_action_meanings(self) -> list[str]:
            return [first_action, "FIRE", "LEFT", "RIGHT"]

        def _draw(self) -> np.ndarray:
            self.frame = self.np_random.integers(0, 256, (HEIGHT, WIDTH, 3), dtype=np.uint8)
            return self.frame.copy()

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            self.num_lives = 3
            return self._draw(), {"lives": self.num_lives}

        def step(self, action):
            if self.np_random.random() < 0.05:
                self.num_lives -= 1
            terminated = self.num_lives == 0 or self.np_random.random() < 0.01
            reward = reward_type(int(action) + self.np_random.integers(0, 3))
            return self._draw(), reward, terminated, False, {"lives": self.num_lives, "action": int(action)}

    return FakeAtariEnv()


def assert_same_results(ours, theirs, where: str) -> None:
    for index, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        if isinstance(b, np.ndarray):
            assert a.dtype == b.dtype and a.shape == b.shape, f"{where} [{index}]"
            np.testing.assert_array_equal(a, b, err_msg=f"{where} [{index}]")
        else:
            assert type(a) is type(b) and a == b, f"{where} [{index}]: {a!r} != {b!r}"


SETTINGS = [
    {},
    {"frame_skip": 1, "noop_max": 0},
    {"frame_skip": 3, "screen_size": (64, 48), "grayscale_newaxis": True},
    {"grayscale_obs": False, "scale_obs": True, "noop_max": 5},
    {"terminal_on_life_loss": True, "noop_max": 2, "screen_size": 42},
    {"grayscale_obs": False, "grayscale_newaxis": True, "frame_skip": 2},
]


@pytest.mark.parametrize("settings", SETTINGS, ids=[str(sorted(s.items())) for s in SETTINGS])
@pytest.mark.parametrize("reward_type", [float, int, np.float32])
def test_steps_are_gymnasiums(settings, reward_type):
    ours = AtariPreprocessing(fake_atari_env(nbgym, reward_type), **settings)
    theirs = gymnasium.wrappers.AtariPreprocessing(fake_atari_env(gymnasium, reward_type), **settings)
    assert ours.observation_space.shape == theirs.observation_space.shape
    assert ours.observation_space.dtype == theirs.observation_space.dtype
    assert (ours.observation_space.low == theirs.observation_space.low).all()
    assert (ours.observation_space.high == theirs.observation_space.high).all()
    for episode in range(3):
        assert_same_results(ours.reset(seed=episode), theirs.reset(seed=episode), f"reset {episode}")
        for t in range(40):
            action = t % 4
            result, their_result = ours.step(action), theirs.step(action)
            assert_same_results(result, their_result, f"episode {episode} step {t}")
            assert (ours.lives, ours.game_over) == (theirs.lives, theirs.game_over)
            if result[2] or result[3]:
                break


@pytest.mark.parametrize(
    "kwargs, env_kwargs, message",
    [
        ({"frame_skip": 0}, {}, "Expect the `frame_skip` to be positive"),
        ({"screen_size": 0}, {}, "Expect the `screen_size` to be positive"),
        ({"screen_size": (84, -1)}, {}, "Expect the `screen_size` to be positive"),
        ({"screen_size": [84, 84]}, {}, "Expect the `screen_size` to be positive"),
        ({}, {"frameskip": 4}, "Disable frame-skipping in the original env"),
        ({"noop_max": -1}, {}, "Expect the `noop_max` to be non-negative"),
        ({}, {"first_action": "FIRE"}, "the first action meaning must be 'NOOP'"),
    ],
)
def test_bad_arguments_raise_gymnasiums_errors(kwargs, env_kwargs, message):
    with pytest.raises(ValueError, match=message):
        gymnasium.wrappers.AtariPreprocessing(fake_atari_env(gymnasium, **env_kwargs), **kwargs)
    with pytest.raises(ValueError, match=message):
        AtariPreprocessing(fake_atari_env(nbgym, **env_kwargs), **kwargs)


def test_refuses_a_non_box_observation_space():
    env = fake_atari_env(nbgym)
    env.observation_space = nbgym.spaces.Discrete(3)
    with pytest.raises(TypeError, match="requires a Box observation space"):
        AtariPreprocessing(env)


def test_missing_opencv_names_the_install_command(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "cv2", None)
    with pytest.raises(error.DependencyNotInstalled, match=r'pip install "nbgym\[other\]"'):
        AtariPreprocessing(fake_atari_env(nbgym))


def test_records_its_arguments_as_gymnasiums():
    ours = AtariPreprocessing(fake_atari_env(nbgym), noop_max=3, screen_size=(40, 30))
    theirs = gymnasium.wrappers.AtariPreprocessing(fake_atari_env(gymnasium), noop_max=3, screen_size=(40, 30))
    assert ours._saved_kwargs == theirs._saved_kwargs
