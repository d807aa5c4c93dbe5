"""What a decision mails a proposal's speakers (docs/organizers.md, "Deciding")."""

from django_tasks import task


@task()
def send_decision_mails(proposal_id: int, state: str) -> int:
    """Mail each speaker of the proposal the decision ``state``, in their language; the number
    of mails sent."""
    return 0
