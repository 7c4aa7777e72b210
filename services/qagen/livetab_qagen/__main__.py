"""`python -m livetab_qagen --config cfg.yaml` = `livetab serve qagen`: the qagen service over Kafka and PostgreSQL."""

import sys

from livetab.runtime.main import main

if __name__ == "__main__":
    sys.exit(main("qagen"))
