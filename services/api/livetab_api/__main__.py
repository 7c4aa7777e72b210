"""`python -m livetab_api --config cfg.yaml` = `livetab serve api`: the api service over Kafka and PostgreSQL."""

import sys

from livetab.runtime.main import main

if __name__ == "__main__":
    sys.exit(main("api"))
