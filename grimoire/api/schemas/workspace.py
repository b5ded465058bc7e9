"""Request and response models of the workspace routes (api/routes/workspace.py): a Markdown workspace as one
JSON object of relative paths to file texts (../shared/spec/moltbot-memory.md, section 3)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from grimoire.graph.memory.workspace import ImportOut as ImportOut  # declared beside the import

MAX_FILES = 20_000
MAX_FILE = 2_000_000  # characters; the request's size limit (BodySizeLimit) bounds the whole

Path = Annotated[str, Field(min_length=1, max_length=500)]
Text = Annotated[str, Field(max_length=MAX_FILE)]


class Workspace(BaseModel):
    """The same shape in and out: what an export returns, an import takes."""

    model_config = ConfigDict(extra="forbid")
    files: dict[Path, Text] = Field(max_length=MAX_FILES, description=(
        "relative path -> the file's text: MEMORY.md, SOUL.md, IDENTITY.md, USER.md, TOOLS.md (the critical files, "
        "kept as written), memory/episodes/YYYY-MM-DD.md, memory/graph/index.md, "
        "memory/graph/relations.md, memory/graph/entities/<kind>--<name>.md, memory/procedures/<name>.md, "
        "memory/vault/<name>.md, memory/meta/decay-scores.json (and, on export, reflection's meta files)"))
