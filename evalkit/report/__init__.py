"""The presentation room (core floor): run-folder files, tables and figures (docs/floors.md)."""

import pandas as pd

# Text here may hold lone surrogates: file names and labels read with os.fsdecode keep an
# undecodable byte as one (docs/inputs.md). pandas 3 stores its string columns in pyarrow
# whenever pyarrow is installed (a dependency since per_page.parquet), and pyarrow refuses
# such text: a frame of those names raised UnicodeEncodeError. Python storage takes any str
# and gives the same values as pandas without pyarrow.
pd.set_option("mode.string_storage", "python")
