"""`python -m livetab_scraper --config cfg.yaml` = `livetab serve scraper`: the scraper service over Kafka and PostgreSQL."""

import sys

from livetab_cli.main import main

if __name__ == "__main__":
    sys.exit(main(["serve", "scraper", *sys.argv[1:]]))
