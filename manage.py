#!/usr/bin/env python
"""Django's command-line utility for amem."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "amem_site.settings")
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line
    from django.db import OperationalError

    from engine.errors import AmemError

    try:
        execute_from_command_line(sys.argv)
    except (ImproperlyConfigured, AmemError) as exc:
        # A configuration mistake deserves one clear line, not a traceback.
        print(f"amem: {exc}", file=sys.stderr)
        sys.exit(2)
    except OperationalError as exc:
        # Most often a wrong DATABASE_URL: its cause in one line (the pool's log hid it).
        from amem_site.db_errors import cause

        print(f"amem: the database cannot be used: {cause(exc)} (check DATABASE_URL)", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
