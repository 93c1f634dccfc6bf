"""The HTTP service (``jiyi serve``): FastAPI app factory, routes, errors, middleware."""

from .app import DEFAULT_MAX_BODY, app_from_env, create_app

__all__ = ["DEFAULT_MAX_BODY", "app_from_env", "create_app"]
