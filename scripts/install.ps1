# Installs webpilot on Windows (PowerShell 5.1 or 7):
#   irm https://github.com/webpilot-mcp/webpilot/releases/latest/download/install.ps1 | iex
# It downloads the release archive for this machine, checks it against the release's SHA256SUMS,
# puts webpilot.exe in $env:WEBPILOT_INSTALL_DIR (default %LOCALAPPDATA%\webpilot\bin) and adds
# that folder to your user PATH.
#   WEBPILOT_VERSION       a release tag such as v0.2.0 (default: the latest)
#   WEBPILOT_INSTALL_DIR   where the binary goes
#   WEBPILOT_DOWNLOAD_URL  the folder that holds the archives and SHA256SUMS (instead of GitHub's)
$ErrorActionPreference = 'Stop'

$arch = if ($env:PROCESSOR_ARCHITECTURE -eq 'ARM64') { 'arm64' } else { 'amd64' }
$version = if ($env:WEBPILOT_VERSION) { $env:WEBPILOT_VERSION } else { 'latest' }
if ($env:WEBPILOT_DOWNLOAD_URL) { $base = $env:WEBPILOT_DOWNLOAD_URL }
elseif ($version -eq 'latest') { $base = 'https://github.com/webpilot-mcp/webpilot/releases/latest/download' }
else { $base = "https://github.com/webpilot-mcp/webpilot/releases/download/$version" }
$dir = if ($env:WEBPILOT_INSTALL_DIR) { $env:WEBPILOT_INSTALL_DIR } else { Join-Path $env:LOCALAPPDATA 'webpilot\bin' }
$archive = "webpilot_windows_$arch.zip"

$tmp = Join-Path ([IO.Path]::GetTempPath()) ("webpilot-" + [Guid]::NewGuid())
New-Item -ItemType Directory -Path $tmp | Out-Null
try {
  Write-Host "downloading $base/$archive"
  Invoke-WebRequest -UseBasicParsing -Uri "$base/$archive" -OutFile (Join-Path $tmp $archive)
  Invoke-WebRequest -UseBasicParsing -Uri "$base/SHA256SUMS" -OutFile (Join-Path $tmp 'SHA256SUMS')
  $want = (Get-Content (Join-Path $tmp 'SHA256SUMS') | Where-Object { ($_ -split '\s+')[1] -eq $archive } | ForEach-Object { ($_ -split '\s+')[0] })
  if (-not $want) { throw "SHA256SUMS lists no $archive" }
  $got = (Get-FileHash -Algorithm SHA256 (Join-Path $tmp $archive)).Hash.ToLower()
  if ($got -ne $want) { throw "$archive does not match SHA256SUMS (got $got, want $want): not installed" }
  Write-Host "checked $archive against SHA256SUMS"
  Expand-Archive -Path (Join-Path $tmp $archive) -DestinationPath (Join-Path $tmp 'x')
  New-Item -ItemType Directory -Force -Path $dir | Out-Null
  Copy-Item -Force (Join-Path $tmp 'x\webpilot.exe') (Join-Path $dir 'webpilot.exe')
  $v = & (Join-Path $dir 'webpilot.exe') version
  Write-Host "installed $dir\webpilot.exe ($v)"
  $path = [Environment]::GetEnvironmentVariable('Path', 'User')
  if (-not (($path -split ';') -contains $dir)) {
    [Environment]::SetEnvironmentVariable('Path', ($path.TrimEnd(';') + ';' + $dir).TrimStart(';'), 'User')
    Write-Host "added $dir to your user PATH (open a new terminal to use it)"
  }
  Write-Host "next: webpilot setup   (adds webpilot to your MCP clients; --dry-run shows what it changes)"
} finally {
  Remove-Item -Recurse -Force $tmp
}
