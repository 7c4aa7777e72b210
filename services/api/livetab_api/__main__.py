"""`python -m livetab_api --config cfg.yaml` = `livetab serve api`: the api service over Kafka and PostgreSQL."""

import sys

from livetab_cli.main import main

if __name__ == "__main__":
    sys.exit(main(["serve", "api", *sys.argv[1:]]))
