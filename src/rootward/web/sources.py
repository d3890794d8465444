"""The console's sources page: the same check as `rootward sources check`, one verdict a line.

The check talks to every configured source (bounded by each connector's
timeout), so it runs when the page is asked for, in the server's thread pool,
never in the background.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from rootward.sources.check import check_sources
from rootward.web.pages import page, signed_in

router = APIRouter()
MAX_SERVICES = 10


@router.get("/sources", response_class=HTMLResponse)
def sources_page(request: Request) -> HTMLResponse:
    user = signed_in(request)
    wanted = [s.strip() for s in request.query_params.getlist("service") if s.strip()][:MAX_SERVICES]
    sections = request.app.state.settings.connector_sections()
    lines = check_sources(sections, wanted) if sections else []
    return page(request, "sources.html", user, lines=lines, services=wanted, configured=sorted(sections))
