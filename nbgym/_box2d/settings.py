"""b2Settings.h: Box2D 2.3's tuning constants, as the float32 values the C++ computes (float32 operations)."""

from __future__ import annotations

import numpy as np

_f = np.float32

MAX_FLOAT = _f(np.finfo(np.float32).max)  # b2_maxFloat (FLT_MAX)
EPSILON = _f(np.finfo(np.float32).eps)  # b2_epsilon (FLT_EPSILON)
PI = _f(3.14159265359)  # b2_pi
MAX_MANIFOLD_POINTS = 2
MAX_POLYGON_VERTICES = 8  # the port's capacity; Box2D 2.3's b2_maxPolygonVertices is 16
AABB_EXTENSION = _f(0.1)  # b2_aabbExtension
AABB_MULTIPLIER = _f(2.0)  # b2_aabbMultiplier
LINEAR_SLOP = _f(0.005)  # b2_linearSlop
ANGULAR_SLOP = _f(2.0) / _f(180.0) * PI  # b2_angularSlop
POLYGON_RADIUS = _f(2.0) * LINEAR_SLOP  # b2_polygonRadius
MAX_SUB_STEPS = 8
MAX_TOI_CONTACTS = 32
VELOCITY_THRESHOLD = _f(1.0)
MAX_LINEAR_CORRECTION = _f(0.2)
MAX_ANGULAR_CORRECTION = _f(8.0) / _f(180.0) * PI
MAX_TRANSLATION = _f(2.0)
MAX_TRANSLATION_SQUARED = MAX_TRANSLATION * MAX_TRANSLATION
MAX_ROTATION = _f(0.5) * PI
MAX_ROTATION_SQUARED = MAX_ROTATION * MAX_ROTATION
BAUMGARTE = _f(0.2)
TOI_BAUGARTE = _f(0.75)
TIME_TO_SLEEP = _f(0.5)
LINEAR_SLEEP_TOLERANCE = _f(0.01)
ANGULAR_SLEEP_TOLERANCE = _f(2.0) / _f(180.0) * PI
NULL_FEATURE = 255  # b2_nullFeature (UCHAR_MAX)
NULL_NODE = -1  # b2_nullNode, b2BroadPhase::e_nullProxy
