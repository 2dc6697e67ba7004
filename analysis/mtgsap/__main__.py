# SPDX-License-Identifier: GPL-2.0-or-later
from mtgsap.cli import main; raise SystemExit(main())  # python -m mtgsap
