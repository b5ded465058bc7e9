"""The API docs, Swagger UI at /docs and ReDoc at /redoc, served by the service itself.

FastAPI's own docs pages load Swagger UI and ReDoc from a CDN, so without internet they are blank.
The fastapi-offline package (MIT) bundles both releases' files (Swagger UI's JavaScript and CSS,
ReDoc's standalone bundle, a favicon) and builds the app with docs pages that load them from the
service; README.md records the package's version and the licenses of what it bundles.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi_offline import FastAPIOffline

ASSETS_URL = "/docs/assets"
# No online validator: Swagger UI would otherwise send the schema to validator.swagger.io.
SWAGGER_UI_PARAMETERS: dict[str, Any] = {"validatorUrl": None}


def offline_app(**fastapi_kwargs: Any) -> FastAPI:
    """A FastAPI app (same keyword arguments) whose /docs and /redoc pages load every asset from
    ASSETS_URL on the service, and never from another host."""
    return FastAPIOffline(static_url=ASSETS_URL, swagger_ui_parameters=SWAGGER_UI_PARAMETERS, **fastapi_kwargs)
