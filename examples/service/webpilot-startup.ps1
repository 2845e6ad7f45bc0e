# Windows: start webpilot's MCP server over HTTP, hidden, at logon.
# Register it once (PowerShell, as yourself):
#   $a = New-ScheduledTaskAction -Execute 'powershell.exe' -Argument '-NoProfile -WindowStyle Hidden -File "C:\path\to\webpilot-startup.ps1"'
#   Register-ScheduledTask -TaskName 'webpilot' -Action $a -Trigger (New-ScheduledTaskTrigger -AtLogOn -User $env:USERNAME)
# An agent in WSL reaches it at http://127.0.0.1:31999/mcp when WSL shares localhost (the default
# networking mode); otherwise listen on the WSL-facing address with -AuthToken set.
param(
	[string]$Webpilot = "$env:USERPROFILE\go\bin\webpilot.exe",
	[string]$Listen = '127.0.0.1:31999',
	[string]$AuthToken = ''
)
$args = @('serve', '--listen', $Listen, '--log-file', "$env:LOCALAPPDATA\webpilot\webpilot.log")
New-Item -ItemType Directory -Force -Path "$env:LOCALAPPDATA\webpilot" | Out-Null
if ($AuthToken) { $env:WEBPILOT_AUTH_TOKEN = $AuthToken }
Start-Process -FilePath $Webpilot -ArgumentList $args -WindowStyle Hidden
