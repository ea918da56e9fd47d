"""Serving: the marts published as a versioned, read-only folder that BI tools hold open
(:mod:`concord_io.serving.publish`), and exported to files for spreadsheets and other tools
(:mod:`concord_io.serving.export`). Readers open what is published with
:func:`concord_io.connect.connect_serving`."""
