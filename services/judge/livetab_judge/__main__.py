"""`python -m livetab_judge --config cfg.yaml` = `livetab serve judge`: the judge service over Kafka and PostgreSQL."""

import sys

from livetab.runtime.main import main

if __name__ == "__main__":
    sys.exit(main("judge"))
