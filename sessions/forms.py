from conference.forms import ConferenceDateTimeField, VersionedModelForm
from sessions.models import Session


class SessionAdminForm(VersionedModelForm):
    """The admin's session form: times typed on the conference's clocks (SessionAdmin renders
    and reads it in the conference's zone), the hour the clocks go back included."""

    starts_at = ConferenceDateTimeField(label="Starts", required=False)
    ends_at = ConferenceDateTimeField(label="Ends", required=False)

    class Meta:
        model = Session
        fields = "__all__"

    def _post_clean(self):
        # The model's rules (within the conference's days, room and speakers free) all read the
        # times: with one unreadable they would judge the old or a missing time and add wrong
        # errors (“Give the start too”). They run once both times read.
        if self.has_error("starts_at") or self.has_error("ends_at"):
            return
        super()._post_clean()
