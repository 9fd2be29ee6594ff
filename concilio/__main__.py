import sys

from concilio.cli import main

sys.exit(main())
