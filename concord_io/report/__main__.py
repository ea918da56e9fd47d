from concord_io.report import main

raise SystemExit(main())
