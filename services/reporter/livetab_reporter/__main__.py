"""`python -m livetab_reporter --config cfg.yaml` = `livetab serve reporter`: the reporter service over Kafka and PostgreSQL."""

import sys

from livetab.runtime.main import main

if __name__ == "__main__":
    sys.exit(main("reporter"))
