from concord_io.errors import run_main
from concord_io.report.page import main

run_main(main)
