from pitable.cli import main

raise SystemExit(main())
