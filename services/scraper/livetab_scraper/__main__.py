"""`python -m livetab_scraper --config cfg.yaml` = `livetab serve scraper`: the scraper service over Kafka and PostgreSQL."""

import sys

from livetab.runtime.main import main

if __name__ == "__main__":
    sys.exit(main("scraper"))
