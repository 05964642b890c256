"""Every MuJoCo env made with models it was not written for (gymnasium's other model files, small hand-made
models), nbgym against gymnasium: where gymnasium raises, nbgym must raise the same type (at make, or at the
same call); where gymnasium runs, nbgym must give its shapes and numbers.

Run as ``python tests/helpers/mujoco_model_sweep.py ENV_ID...`` (a subprocess of ``test_mujoco_safety``, so that a
crash of the process names the case): prints one line per model, ``ok`` or what differs.
"""

from __future__ import annotations

import os
import pathlib
import sys
import tempfile
import warnings

import numpy as np

warnings.simplefilter("ignore")
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))  # this checkout's nbgym

HAND_MADE = {
    "empty": "<mujoco><worldbody/></mujoco>",
    "one_hinge": """<mujoco><worldbody><body name="a"><joint name="j0" type="hinge"/><geom size=".1"/></body></worldbody>
        <actuator><motor joint="j0" ctrlrange="-1 1" ctrllimited="true"/></actuator></mujoco>""",
    "one_slide_no_actuator": """<mujoco><worldbody><body name="a"><joint type="slide"/><geom size=".1"/></body>
        </worldbody></mujoco>""",
    "free_body": """<mujoco><worldbody><geom type="plane" size="5 5 .1"/><body name="torso" pos="0 0 1"><freejoint/>
        <geom size=".1"/></body></worldbody></mujoco>""",
    "two_hinges_no_sites": """<mujoco><worldbody><body name="a"><joint name="j0" type="hinge"/><geom size=".1"/>
        <body name="b" pos="0 0 .3"><joint name="j1" type="hinge"/><geom size=".1"/></body></body></worldbody>
        <actuator><motor joint="j0" ctrlrange="-1 1" ctrllimited="true"/><motor joint="j1" ctrlrange="-1 1"
        ctrllimited="true"/></actuator></mujoco>""",
    "three_slides_three_bodies": """<mujoco><worldbody><body name="a"><joint name="j0" type="slide"/><geom size=".1"/>
        <body name="b" pos="0 0 .3"><joint name="j1" type="hinge"/><geom size=".1"/><body name="c" pos="0 0 .3">
        <joint name="j2" type="hinge"/><geom size=".1"/><site name="tip" pos="0 0 .1"/></body></body></body>
        </worldbody><actuator><motor joint="j0"/><motor joint="j1"/><motor joint="j2"/></actuator></mujoco>""",
}


def model_files(directory: pathlib.Path) -> dict[str, str]:
    import gymnasium

    assets = pathlib.Path(gymnasium.__file__).parent / "envs" / "mujoco" / "assets"
    files = {path.stem: str(path) for path in sorted(assets.glob("*.xml"))}
    for name, xml in HAND_MADE.items():
        path = directory / f"{name}.xml"
        path.write_text(xml)
        files[name] = str(path)
    return files


def run(make, steps: int = 4):
    """What an env does: the failing stage and exception type, or its observations, rewards, flags, infos."""
    try:
        env = make()
    except Exception as failure:  # noqa: BLE001
        return ("make", type(failure))
    record = [env.observation_space.shape, env.action_space.shape]
    try:
        obs, info = env.reset(seed=0)
    except Exception as failure:  # noqa: BLE001
        return ("reset", type(failure))
    record.append((obs, info))
    rng = np.random.default_rng(1)
    for k in range(steps):
        action = rng.uniform(-1, 1, env.action_space.shape).astype(env.action_space.dtype)
        try:
            result = env.step(action)
        except Exception as failure:  # noqa: BLE001
            return ("step", k, type(failure), record)
        record.append(result)
    return record


def same(a, b) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            np.shape(a) == np.shape(b)
            and np.asarray(a).dtype == np.asarray(b).dtype
            and np.array_equal(a, b, equal_nan=True)
        )
    if isinstance(a, float) and isinstance(b, float) and np.isnan(a) and np.isnan(b):
        return type(a) is type(b)
    return type(a) is type(b) and a == b


def outside_its_space(record) -> bool:
    """Whether an env's observations are not of the shape of its own observation space."""
    space_shape = record[0]
    return any(np.shape(entry[0]) != space_shape for entry in record[2:])


def compare(env_id: str, xml_file: str) -> str:
    import gymnasium

    import nbgym

    kwargs = {"xml_file": xml_file}
    theirs = run(lambda: gymnasium.make(env_id, **kwargs).unwrapped)
    ours = run(lambda: nbgym.make(env_id, **kwargs).unwrapped)
    if isinstance(theirs, tuple):
        # gymnasium raises: nbgym raises the same type, at make or at the same call.
        if not isinstance(ours, tuple):
            return f"gymnasium raises {theirs[:3]}, nbgym runs"
        stage_theirs, type_theirs = theirs[0], theirs[-2] if theirs[0] == "step" else theirs[-1]
        type_ours = ours[-2] if ours[0] == "step" else ours[-1]
        if not issubclass(type_ours, type_theirs):
            return f"gymnasium raises {type_theirs.__name__} at {stage_theirs}, nbgym {type_ours.__name__} at {ours[0]}"
        if ours[0] != "make" and ours[:2] != theirs[:2]:
            return f"gymnasium raises at {theirs[:2]}, nbgym at {ours[:2]}"
        return "ok"
    if isinstance(ours, tuple) and ours[0] == "make" and ours[-1] is ValueError and outside_its_space(theirs):
        return "ok"  # gymnasium's observations do not fit its own observation space: nbgym refuses the model
    if isinstance(ours, tuple):
        return f"gymnasium runs, nbgym raises {ours[0]} {ours[-2] if ours[0] == 'step' else ours[-1]}"
    # Where gymnasium's observations do not fit its own observation space, nbgym's space is their shape.
    observed = np.shape(theirs[2][0])
    if not same([observed, theirs[1]], ours[:2]):
        return f"spaces differ: gymnasium {theirs[:2]} (observations {observed}), nbgym {ours[:2]}"
    for k, (a, b) in enumerate(zip(theirs[2:], ours[2:])):
        if not same(a, b):
            return f"differs at {'reset' if k == 0 else f'step {k}'}"
    return "ok"


def main(env_ids: list[str]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        files = model_files(pathlib.Path(directory))
        only = os.environ.get("SWEEP_MODELS")
        for env_id in env_ids:
            for name, path in files.items():
                if only and name not in only.split(","):
                    continue
                print(f"{env_id} {name}: {compare(env_id, path)}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
