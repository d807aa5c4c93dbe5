"""(being written)"""

urlpatterns = []
