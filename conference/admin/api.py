"""The admin of what outside clients hold (conference/models/api.py): webhook endpoints and
their delivery log, API tokens with their scope. Registered by conference/admin/conference.py, which
imports it."""

from django import forms
from django.contrib import admin
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseNotAllowed
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from conference.admin.scoped import ConferenceScopedAdmin
from conference.admin.widgets import AutocompleteAdminMixin
from conference.models import ApiToken, WebhookDelivery, WebhookEndpoint
from conference.permissions import conferences_where


class WebhookEndpointForm(forms.ModelForm):
    events = forms.MultipleChoiceField(
        choices=WebhookEndpoint.Event.choices,
        widget=forms.CheckboxSelectMultiple,
        help_text=gettext_lazy("What the endpoint is told of."),
    )

    class Meta:
        model = WebhookEndpoint
        fields = ["conference", "url", "events", "secret", "is_active"]


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(ConferenceScopedAdmin, admin.ModelAdmin):
    form = WebhookEndpointForm
    list_display = ["url", "conference", "event_list", "is_active", "delivery_log"]
    list_filter = ["is_active", "conference"]
    list_select_related = ["conference"]
    search_fields = ["url"]
    readonly_fields = ["receiver_secret", "delivery_log", "created_at"]

    @admin.display(description=gettext_lazy("secret for the receiver"))
    def receiver_secret(self, endpoint):
        # The whsec_ form Standard Webhooks' libraries take, also of a secret typed otherwise.
        return endpoint.receiver_secret if endpoint.pk else "—"

    @admin.display(description=gettext_lazy("events"))
    def event_list(self, endpoint):
        labels = dict(WebhookEndpoint.Event.choices)
        return ", ".join(str(labels.get(event, event)) for event in endpoint.events)

    @admin.display(description=gettext_lazy("deliveries"))
    def delivery_log(self, endpoint):
        if endpoint.pk is None:
            return "—"
        url = reverse("admin:conference_webhookdelivery_changelist")
        return format_html(
            '<a href="{}?{}">{}</a>',
            url,
            urlencode({"endpoint__id__exact": endpoint.pk}),
            _("Delivery log"),
        )


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ConferenceScopedAdmin, admin.ModelAdmin):
    """The delivery log: read only; the worker writes it."""

    conference_lookup = "endpoint__conference"

    list_display = [
        "created_at",
        "event",
        "endpoint",
        "status",
        "response_code",
        "attempts",
        "next_try_at",
        "last_error_excerpt",
    ]
    list_filter = ["status", "event", "endpoint"]
    list_select_related = ["endpoint"]
    date_hierarchy = "created_at"
    fields = [
        "endpoint",
        "event",
        "status",
        "response_code",
        "attempts",
        "created_at",
        "last_try_at",
        "next_try_at",
        "last_error",
        "body",
    ]

    @admin.display(description=gettext_lazy("last error"))
    def last_error_excerpt(self, delivery):
        return delivery.last_error[:80]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class ApiTokenForm(forms.ModelForm):
    class Meta:
        model = ApiToken
        fields = ["user", "name", "scope", "conferences", "expires_at"]


@admin.register(ApiToken)
class ApiTokenAdmin(AutocompleteAdminMixin, admin.ModelAdmin):
    """Tokens by their prefix: the key is shown once, on the page answering its creation, and
    kept only as a digest (conference/models/api.py)."""

    form = ApiTokenForm
    change_form_template = "admin/conference/apitoken/change_form.html"
    list_display = ["__str__", "prefix", "user", "scope", "expires_at", "revoked_at", "created_at"]
    list_filter = ["scope", ("revoked_at", admin.EmptyFieldListFilter)]
    list_select_related = ["user"]
    search_fields = ["name", "prefix", "user__username"]
    autocomplete_fields = ["user"]
    filter_horizontal = ["conferences"]
    readonly_fields = ["prefix", "created_at", "revoked_at"]
    actions = ["revoke"]

    # Tokens are personal (conference/permissions.py, ``owns_the_token``): a person lists,
    # makes and revokes their own, and a token limited to conferences names only those their
    # teams cover. It acts as its owner, never beyond (conference/api/policies.py).

    def get_queryset(self, request):
        tokens = super().get_queryset(request)
        return tokens if request.user.is_superuser else tokens.filter(user=request.user)

    def get_object(self, request, object_id, from_field=None):
        obj = super().get_object(request, object_id, from_field)
        if obj is None:
            raise Http404("No such token of yours.")
        return obj

    def get_fields(self, request, obj=None):
        fields = super().get_fields(request, obj)
        if obj is None:  # nothing to show yet of what the token will be given
            fields = [f for f in fields if f not in self.readonly_fields]
        return fields if request.user.is_superuser else [f for f in fields if f != "user"]

    def get_field_queryset(self, db, db_field, request):
        queryset = super().get_field_queryset(db, db_field, request)
        if db_field.name == "conferences" and not request.user.is_superuser:
            return conferences_where(request.user, "conference.view_conference")
        return queryset

    def save_model(self, request, obj, form, change):
        if not request.user.is_superuser:
            obj.user = request.user
        super().save_model(request, obj, form, change)

    def response_add(self, request, obj, post_url_continue=None):
        # The key, once, in the answer to the POST that made it: not in a message, which would
        # keep it in the session or a cookie until shown. Reloading asks to post again.
        context = {
            **self.admin_site.each_context(request),
            "title": _("Your new API token"),
            "opts": self.opts,
            "token": obj,
            "key": obj.key,
        }
        return TemplateResponse(request, "admin/conference/apitoken/key_issued.html", context)

    def get_urls(self):
        revoke = self.admin_site.admin_view(self.revoke_view)
        revoke_url = path("<path:object_id>/revoke/", revoke, name="conference_apitoken_revoke")
        return [revoke_url, *super().get_urls()]

    def revoke_view(self, request, object_id):
        """The change page's Revoke button (a POST)."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        token = self.get_object(request, unquote(object_id))
        if not self.has_change_permission(request, token):
            raise PermissionDenied
        token.revoke()
        self.message_user(request, _("The token “%(token)s” is revoked.") % {"token": token})
        return redirect("admin:conference_apitoken_change", token.pk)

    @admin.action(description=gettext_lazy("Revoke the selected tokens"), permissions=["change"])
    def revoke(self, request, queryset):
        count = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        self.message_user(
            request,
            ngettext("%(count)d token revoked.", "%(count)d tokens revoked.", count)
            % {"count": count},
        )

    def has_module_permission(self, request):
        return request.user.has_perm("conference")

    def has_view_permission(self, request, obj=None):
        return request.user.has_perm("conference.view_apitoken", obj)

    def has_add_permission(self, request):
        return request.user.has_perm("conference.add_apitoken")

    def has_change_permission(self, request, obj=None):
        return request.user.has_perm("conference.change_apitoken", obj)

    def has_delete_permission(self, request, obj=None):
        return request.user.has_perm("conference.delete_apitoken", obj)
