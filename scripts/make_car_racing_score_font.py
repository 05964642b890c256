"""Writes ``nbgym/envs/box2d/car_racing/assets/car_racing_score_font.npz``: the glyphs and kerning of CarRacing's score text.

gymnasium draws the score with ``pygame.font.Font(pygame.font.get_default_font(), 42).render(text, True,
(255, 255, 255), (0, 0, 0))``. SDL_ttf 2.24 (pygame-ce 2.5.8's) lays the text out with harfbuzz, which applies
the font's ``kern`` table in 26.6 fixed point, and ORs each glyph's 8-bit coverage into the box. This script
takes each glyph's bitmap and metrics from pygame-ce's own renders and the kerning from the font file, scaled
as harfbuzz scales it; ``tests/envs/box2d/test_box2d_car_raster.py`` checks the table against pygame-ce's renders of
every score text in a wide range. Needs pygame-ce and fontTools.

Run: ``python scripts/make_car_racing_score_font.py``.
"""

from __future__ import annotations

import os

import numpy as np
import pygame
from fontTools.ttLib import TTFont

CHARS = "0123456789-nafi"  # digits first (a digit is its own index), then what f"{x:04.0f}" writes for NaN and inf
SIZE = 42
OUT = os.path.join(
    os.path.dirname(__file__), "..", "nbgym", "envs", "box2d", "car_racing", "assets", "car_racing_score_font.npz"
)


def harfbuzz_kern(units: int, units_per_em: int) -> int:
    """A kerning value in font units as harfbuzz scales it for a FreeType face at ``SIZE`` pixels per em, 26.6.

    FreeType's ``x_scale = FT_DivFix(ppem * 64, upem)``; harfbuzz's ``x_scale`` is that times ``upem``, rounded
    from 16.16, and ``em_mult`` multiplies by ``(x_scale << 16) / upem`` and rounds from 16.16.
    """
    ft_x_scale = (SIZE * 64 * 65536 + units_per_em // 2) // units_per_em
    hb_x_scale = (ft_x_scale * units_per_em + (1 << 15)) >> 16
    mult = (hb_x_scale << 16) // units_per_em
    return (units * mult + 32768) >> 16


def main() -> None:
    """Renders the glyphs with pygame-ce, reads the kerning with fontTools and writes the table."""
    pygame.font.init()
    path = os.path.join(os.path.dirname(pygame.__file__), pygame.font.get_default_font())
    font = pygame.font.Font(path, SIZE)
    metrics = [font.metrics(ch)[0] for ch in CHARS]
    renders = [pygame.surfarray.array2d(font.render(ch, True, (255, 255, 255), (0, 0, 0))).T for ch in CHARS]
    height = renders[0].shape[0]
    width = max(m[1] - m[0] for m in metrics)
    glyphs = np.zeros((len(CHARS), height, width), dtype=np.uint8)
    for g, (m, image) in enumerate(zip(metrics, renders)):
        assert m[0] >= 0, "a glyph with a negative bearing would shift a lone glyph's box"
        glyphs[g, :, : m[1] - m[0]] = image[:, m[0] : m[1]]
    face = TTFont(path)
    cmap = face.getBestCmap()
    table = face["kern"].kernTables[0].kernTable
    upem = face["head"].unitsPerEm
    kern = np.array(
        [[harfbuzz_kern(table.get((cmap[ord(a)], cmap[ord(b)]), 0), upem) for b in CHARS] for a in CHARS],
        dtype=np.int64,
    )
    np.savez_compressed(
        OUT,
        chars=np.array(CHARS),
        glyphs=glyphs,
        left=np.array([m[0] for m in metrics], dtype=np.int64),
        right=np.array([m[1] for m in metrics], dtype=np.int64),
        advance=np.array([64 * m[4] for m in metrics], dtype=np.int64),
        kern=kern,
    )


if __name__ == "__main__":
    main()
