"""A measured prototype of issue 50's lane-batched world step, on its largest part: LunarLander's two revolute
joints' velocity iterations (2 joints x 180 iterations a step, 59% of a 16-env step in ``perf``).

``scalar`` is the port as a step runs it: each world's iterations one after the other, through
``revolute_joint.solve_velocity_constraints``. ``lanes`` runs the same iterations of ``n`` worlds side by side:
the worlds' joint rows and island velocities gathered so that a field of every world is one contiguous row (world
innermost: the lander is slot 0, the legs slots 1 and 2), and the loop over worlds innermost, each world's floats
computed by the same float32 operations in the same order as alone, the motor, limit and Solve22 branches all
computed and selected per world (a branch a world does not take costs the others nothing but its operations).

Both start from the joint rows and velocities left by real LunarLander steps (random actions; free, landing and
resting legs: every limit state the legs reach) and must end with the same bits in every float; the speed is the
median of interleaved rounds, per world-step, in process CPU time::

    PYTHONPATH=. python benchmarks/bench_box2d_lanes.py --worlds 1 3 16 17 64

Only the joints are solved (the contact solve between them is left out), so the figures are an upper bound of
what lanes bring to a world step; ``--asm`` prints whether LLVM emitted SIMD (``ymm``) or FMA instructions for
``lanes``.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time

import numpy as np
from numba import njit

import nbgym
from nbgym._box2d import revolute_joint as R

F32 = np.float32
ITERATIONS = 180  # LunarLander's velocity iterations
DT = F32(1.0 / 50.0)

_FIELDS = [
    R.JF_IMA,
    R.JF_IMB,
    R.JF_IIA,
    R.JF_IIB,
    R.JF_RAX,
    R.JF_RAY,
    R.JF_RBX,
    R.JF_RBY,
    R.JF_MOTOR_SPEED,
    R.JF_MOTOR_MASS,
    R.JF_MOTOR_IMP,
    R.JF_MAX_TORQUE,
    *range(R.EXX, R.EZZ + 1),
    R.JF_CROSS_EY_EZ,
    R.JF_CROSS_EY_EZ + 1,
    R.JF_CROSS_EY_EZ + 2,
    R.JF_INV_DET33,
    R.JF_INV_DET22,
    R.JF_IMPX,
    R.JF_IMPY,
    R.JF_IMPZ,
]
FIELDS = np.array(_FIELDS)
(IMA, IMB, IIA, IIB, RAX, RAY, RBX, RBY, SPEED, MMASS, MIMP, MAXT) = range(12)
EXX, EXY, EXZ, EYX, EYY, EYZ, EZX, EZY, EZZ = range(12, 21)
CX, CY, CZ, DET33, DET22, IMPX, IMPY, IMPZ = range(21, 29)
INTS = np.array([R.JI_MOTOR_ON, R.JI_LIMIT_ON, R.JI_LIMIT_STATE])


@njit
def scalar(joint_i, joint_f, vel, dt, iterations):
    """The port's iterations, world by world."""
    for r in range(joint_f.shape[0]):
        for _ in range(iterations):
            for j in range(2):
                R.solve_velocity_constraints(joint_i[r], joint_f[r], j, vel[r], dt)


@njit
def lanes(ji, jf, v, dt, iterations):
    """The same iterations, the worlds side by side: ``jf[field, joint, world]``, ``v[slot, xyw, world]``."""
    zero = F32(0.0)
    for _ in range(iterations):
        for j in range(2):
            b = 1 + j
            for w in range(v.shape[2]):
                vax, vay, wa = v[0, 0, w], v[0, 1, w], v[0, 2, w]
                vbx, vby, wb = v[b, 0, w], v[b, 1, w], v[b, 2, w]
                ma, mb, ia, ib = jf[IMA, j, w], jf[IMB, j, w], jf[IIA, j, w], jf[IIB, j, w]
                rax, ray, rbx, rby = jf[RAX, j, w], jf[RAY, j, w], jf[RBX, j, w], jf[RBY, j, w]
                free = not ((ia + ib) == zero)
                state = ji[2, j, w]
                motor = (ji[0, j, w] != 0) & (state != R.EQUAL_LIMITS) & free
                cdot = wb - wa - jf[SPEED, j, w]
                impulse = -jf[MMASS, j, w] * cdot
                old = jf[MIMP, j, w]
                most = dt * jf[MAXT, j, w]
                new = R._clamp(old + impulse, -most, most)
                impulse = new - old
                jf[MIMP, j, w] = new if motor else old
                wa = (wa - ia * impulse) if motor else wa
                wb = (wb + ib * impulse) if motor else wb
                limit = (ji[1, j, w] != 0) & (state != R.INACTIVE_LIMIT) & free
                c1x = vbx + (-wb * rby) - vax - (-wa * ray)
                c1y = vby + wb * rbx - vay - wa * rax
                c2 = wb - wa
                exx, exy, exz = jf[EXX, j, w], jf[EXY, j, w], jf[EXZ, j, w]
                eyx, eyy, eyz = jf[EYX, j, w], jf[EYY, j, w], jf[EYZ, j, w]
                ezx, ezy, ezz = jf[EZX, j, w], jf[EZY, j, w], jf[EZZ, j, w]
                det = jf[DET33, j, w]
                x = det * (c1x * jf[CX, j, w] + c1y * jf[CY, j, w] + c2 * jf[CZ, j, w])
                cx = c1y * ezz - c2 * ezy
                cy = c2 * ezx - c1x * ezz
                cz = c1x * ezy - c1y * ezx
                y = det * (exx * cx + exy * cy + exz * cz)
                cx = eyy * c2 - eyz * c1y
                cy = eyz * c1x - eyx * c2
                cz = eyx * c1y - eyy * c1x
                z = det * (exx * cx + exy * cy + exz * cz)
                impx, impy, impz = -x, -y, -z
                ipx, ipy, ipz = jf[IMPX, j, w], jf[IMPY, j, w], jf[IMPZ, j, w]
                det22 = jf[DET22, j, w]
                bx = -c1x + ipz * ezx  # the limit's Solve22: an impulse of the wrong sign at a limit
                by = -c1y + ipz * ezy
                rx = det22 * (eyy * bx - eyx * by)
                ry = det22 * (exx * by - exy * bx)
                newz = ipz + impz
                flip = ((state == R.AT_LOWER_LIMIT) & (newz < zero)) | ((state == R.AT_UPPER_LIMIT) & (newz > zero))
                nx, ny = -c1x, -c1y  # no limit: Solve22(-Cdot)
                ix = det22 * (eyy * nx - eyx * ny)
                iy = det22 * (exx * ny - exy * nx)
                lx = rx if flip else impx
                ly = ry if flip else impy
                lz = -ipz if flip else impz
                px = (ipx + rx) if flip else (ipx + impx)
                py = (ipy + ry) if flip else (ipy + impy)
                pz = zero if flip else (ipz + impz)
                jf[IMPX, j, w] = px if limit else ipx + ix
                jf[IMPY, j, w] = py if limit else ipy + iy
                jf[IMPZ, j, w] = pz if limit else ipz
                v[0, 0, w] = (vax - ma * lx) if limit else (vax - ma * ix)
                v[0, 1, w] = (vay - ma * ly) if limit else (vay - ma * iy)
                v[0, 2, w] = (wa - ia * ((rax * ly - ray * lx) + lz)) if limit else (wa - ia * (rax * iy - ray * ix))
                v[b, 0, w] = (vbx + mb * lx) if limit else (vbx + mb * ix)
                v[b, 1, w] = (vby + mb * ly) if limit else (vby + mb * iy)
                v[b, 2, w] = (wb + ib * ((rbx * ly - rby * lx) + lz)) if limit else (wb + ib * (rbx * iy - rby * ix))


def slots(joint_i: np.ndarray, r: int) -> tuple[int, int, int]:
    """The island indices of world ``r``'s lander (both joints' body A) and legs."""
    a0, b0 = joint_i[r, 0, R.JI_INDEXA], joint_i[r, 0, R.JI_INDEXB]
    a1, b1 = joint_i[r, 1, R.JI_INDEXA], joint_i[r, 1, R.JI_INDEXB]
    if a0 != a1 or len({a0, b0, b1}) != 3:
        raise ValueError(f"world {r}: not LunarLander's joints (island indices {a0}, {b0}, {a1}, {b1})")
    return a0, b0, b1


def gather(joint_i: np.ndarray, joint_f: np.ndarray, vel: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The lanes' arrays of the worlds' joint rows and island velocities."""
    n = joint_f.shape[0]
    ji = np.ascontiguousarray(joint_i[:, :2][:, :, INTS].transpose(2, 1, 0))
    jf = np.ascontiguousarray(joint_f[:, :2][:, :, FIELDS].transpose(2, 1, 0))
    v = np.empty((3, 3, n), np.float32)
    for r in range(n):
        for s, index in enumerate(slots(joint_i, r)):
            v[s, :, r] = vel[r, index]
    return ji, jf, v


def same_bits(joint_i, joint_f, vel, jf, v) -> bool:
    """Whether the lanes' floats are the port's, bit for bit."""
    for r in range(joint_f.shape[0]):
        for s, index in enumerate(slots(joint_i, r)):
            if not np.array_equal(v[s, :, r].view(np.uint32), vel[r, index].view(np.uint32)):
                return False
        if not np.array_equal(jf[:, :, r].T.view(np.uint32), joint_f[r, :2][:, FIELDS].view(np.uint32)):
            return False
    return True


def snapshots(n: int, steps: int = 40) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Joint rows and island velocities of ``n`` LunarLander worlds after every 4th of ``steps`` random steps."""
    env = nbgym.make_vec("LunarLander-v3", n)
    env.reset(seed=0)
    env.action_space.seed(0)
    w = env._batch._state.w
    taken = []
    for k in range(steps):
        env.step(env.action_space.sample())
        if k % 4 == 3:
            taken.append((w.joint_i.copy(), w.joint_f.copy(), w.velocities.copy()))
    env.close()
    return taken


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worlds", nargs="+", type=int, default=[1, 3, 16, 17, 64])
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds (default: 7)")
    parser.add_argument("--asm", action="store_true", help="count SIMD and FMA instructions in lanes' code")
    args = parser.parse_args()
    taken = snapshots(max(args.worlds))
    states = np.concatenate([joint_i[:, :2, R.JI_LIMIT_STATE].ravel() for joint_i, _, _ in taken])
    print("limit states (inactive, lower, upper, equal):", np.bincount(states, minlength=4).tolist())
    for n in args.worlds:
        for joint_i, joint_f, vel in taken:
            ji, jf, v = gather(joint_i[:n], joint_f[:n], vel[:n])
            joint_f, vel = joint_f[:n].copy(), vel[:n].copy()
            scalar(joint_i[:n], joint_f, vel, DT, ITERATIONS)
            lanes(ji, jf, v, DT, ITERATIONS)
            if not same_bits(joint_i[:n], joint_f, vel, jf, v):
                raise AssertionError(f"{n} worlds: the lanes' floats differ from the port's")
        joint_i, joint_f, vel = (array[:n] for array in taken[-1])
        times: dict[str, list[float]] = {"scalar": [], "lanes": []}
        repeats = max(1, 2000 // n)
        for _ in range(args.rounds):
            ji, jf, v = gather(joint_i, joint_f, vel)
            f, u = joint_f.copy(), vel.copy()
            for name, run in (
                ("scalar", lambda: scalar(joint_i, f, u, DT, ITERATIONS)),
                ("lanes", lambda: lanes(ji, jf, v, DT, ITERATIONS)),
            ):
                start = time.process_time()
                for _ in range(repeats):
                    run()
                times[name].append((time.process_time() - start) / repeats / n)
        ours, lane = statistics.median(times["scalar"]), statistics.median(times["lanes"])
        print(
            f"{n:5d} worlds: per world-step (2 joints x {ITERATIONS} iterations) port {ours * 1e6:6.2f} us, "
            f"lanes {lane * 1e6:6.2f} us: {ours / lane:4.2f}x (bit-exact on {len(taken)} snapshots)"
        )
    if args.asm:
        code = "\n".join(lanes.inspect_asm().values())
        counts = {
            kind: len(re.findall(pattern, code))
            for kind, pattern in (
                ("ymm", r"%ymm"),
                ("fma", r"vf[n]?m(add|sub)"),
                ("vmulss", r"vmulss"),
                ("vmulps", r"vmulps"),
            )
        }
        print("lanes' instructions:", counts)


if __name__ == "__main__":
    main()
