"""The project shell: settings, root URLs (pages and the API), WSGI, error pages, the template
engine, the installable web app (offline), background-task upkeep and the demo loader. It alone
composes the three apps, so it may import any of them; nothing imports it but Django."""
