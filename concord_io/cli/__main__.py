from concord_io.cli import main

main()
