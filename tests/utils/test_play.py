"""nbgym.utils.play: keyboard play under SDL's dummy video driver, with scripted key events; PlayPlot."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"

import numpy as np
import pygame
import pytest

import nbgym
from nbgym.utils import play as play_module
from nbgym.utils.play import MissingKeysToAction, PlayableGame, PlayPlot, display_arr, play


def key_event(kind: int, key: int) -> pygame.event.Event:
    return pygame.event.Event(kind, key=key)


def script_events(monkeypatch, frames: list[list[pygame.event.Event]]) -> None:
    """Makes ``pygame.event.get()`` return the events of one frame per call, then a window close."""
    queue = list(frames)
    monkeypatch.setattr(
        play_module.pygame.event, "get", lambda: queue.pop(0) if queue else [pygame.event.Event(pygame.QUIT)]
    )


def test_play_steps_with_the_held_keys(monkeypatch):
    """Each frame steps with the action of the keys held (noop otherwise); callbacks see every transition;
    a quit event ends the game."""
    right, left = ord("d"), ord("a")
    script_events(
        monkeypatch,
        [
            [key_event(pygame.KEYDOWN, right)],
            [],
            [key_event(pygame.KEYUP, right), key_event(pygame.KEYDOWN, left)],
            [key_event(pygame.KEYDOWN, pygame.K_SPACE)],  # not a key of the mapping: ignored
            [key_event(pygame.KEYUP, left)],
        ],
    )
    transitions = []
    env = nbgym.make("MountainCar-v0", render_mode="rgb_array")
    play(env, fps=1000, keys_to_action={"a": 0, "d": 2}, noop=1, seed=3, callback=lambda *t: transitions.append(t))
    actions = [t[2] for t in transitions]
    # The first frame resets; then one step per frame with the keys held after the previous frame.
    assert actions == [2, 2, 0, 0, 1]
    reference = nbgym.make("MountainCar-v0")
    obs, info = reference.reset(seed=3)
    # As in gymnasium's play, the first step's previous observation is the reset's (obs, info) pair.
    np.testing.assert_array_equal(transitions[0][0][0], obs)
    assert transitions[0][0][1] == info
    for k, (obs_t, obs_tp1, action, reward, terminated, truncated, info) in enumerate(transitions):
        if k:
            np.testing.assert_array_equal(obs_t, obs)
        obs, their_reward, *_ = reference.step(action)
        np.testing.assert_array_equal(obs_tp1, obs)
        assert reward == their_reward
    assert not pygame.display.get_init()


def test_play_waits_on_the_player(monkeypatch):
    script_events(monkeypatch, [[], [], [key_event(pygame.KEYDOWN, ord("x"))], [key_event(pygame.KEYUP, ord("x"))], []])
    transitions = []
    play(
        nbgym.make("FrozenLake-v1", render_mode="rgb_array"),
        fps=1000,
        keys_to_action={("x",): 2},
        wait_on_player=True,
        callback=lambda *t: transitions.append(t[2]),
    )
    assert transitions == [2]


def test_play_rejects_bad_mappings():
    env = nbgym.make("CartPole-v1", render_mode="rgb_array")
    with pytest.raises(MissingKeysToAction, match="CartPole-v1 does not have explicit key to action mapping"):
        play(env)
    with pytest.raises(TypeError, match="keys_to_action must be a dictionary"):
        play(env, keys_to_action=[("a", 0)])
    with pytest.raises(ValueError, match="cannot be empty"):
        play(env, keys_to_action={(): 0})
    with pytest.raises(TypeError, match="must be integers or strings"):
        play(env, keys_to_action={(1.5,): 0})
    with pytest.raises(ValueError, match="is not a valid action"):
        play(env, keys_to_action={"a": 7})


def test_playable_game_checks_and_resizes():
    env = nbgym.make("CartPole-v1", render_mode="rgb_array")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="Zoom must be a positive float"):
        PlayableGame(env, {(97,): 0}, zoom=0)
    with pytest.raises(ValueError, match="works only with rgb_array"):
        PlayableGame(nbgym.make("Taxi-v4", render_mode="ansi"), {(97,): 0})
    game = PlayableGame(env, {(97,): 0, (100,): 1}, zoom=0.5)
    assert game.relevant_keys == {97, 100} and game.video_size == (300, 200)
    game.process_event(pygame.event.Event(pygame.WINDOWRESIZED, x=900, y=900))
    assert game.video_size == (900, 600)
    game.process_event(key_event(pygame.KEYDOWN, pygame.K_ESCAPE))
    assert not game.running
    pygame.display.quit()


def test_display_arr_centres_the_scaled_frame():
    pygame.display.init()
    screen = pygame.Surface((40, 30))
    frame = np.zeros((10, 20, 3), dtype=np.uint8)
    frame[:, :, 0] = 255
    display_arr(screen, frame, video_size=(20, 10), transpose=True)
    shown = pygame.surfarray.array3d(screen).transpose(1, 0, 2)
    assert np.all(shown[10:20, 10:30, 0] == 255) and np.all(shown[:10] == 0) and np.all(shown[:, :10] == 0)


def test_play_plot_keeps_the_horizon():
    pytest.importorskip("matplotlib").use("Agg")
    plotter = PlayPlot(lambda obs_t, obs_tp1, action, rew, *rest: [rew, action], 3, ["reward", "action"])
    for t in range(5):
        plotter.callback(None, None, t, float(t), False, False, {})
    assert [list(series) for series in plotter.data] == [[2.0, 3.0, 4.0], [2, 3, 4]]
    assert plotter.ax[0].get_xlim() == (2, 5)
