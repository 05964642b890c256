# Vendored from gymnasium 1.4.0 (https://github.com/Farama-Foundation/Gymnasium, commit 95a790e1 "Update to v1.4.0"),
# MIT License, Copyright (c) 2016 OpenAI, Copyright (c) 2022 Farama Foundation: the full licence text is in
# tests/gymnasium_1_4_0/LICENSE, next to these files.
