"""Nobody loses access on upgrade: before teams, staff decided by is_staff and global permissions
could reach every conference; they become members of an organizer team covering all of them."""

from django.db import migrations


def staff_into_an_organizer_team(apps, schema_editor):
    User = apps.get_model("auth", "User")
    Team = apps.get_model("conference", "Team")
    staff = list(User.objects.filter(is_staff=True, is_active=True))
    if not staff:
        return
    team = Team.objects.create(name="Organizers", all_conferences=True, is_organizer=True)
    team.members.set(staff)


class Migration(migrations.Migration):
    dependencies = [
        ("conference", "0018_teams"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(staff_into_an_organizer_team, migrations.RunPython.noop)]
