"""`python -m livetab_inference --config cfg.yaml` = `livetab serve inference`: the inference service over Kafka and PostgreSQL."""

import sys

from livetab.runtime.main import main

if __name__ == "__main__":
    sys.exit(main("inference"))
