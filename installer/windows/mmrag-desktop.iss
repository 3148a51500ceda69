; Inno Setup script for mmrag-desktop on Windows. UNTESTED: no Windows machine was available;
; see installer/README.md for how to build and what to check.
;   1. On Windows, from a set-up checkout:  pyinstaller --noconfirm build.spec
;      (gives dist\mmrag-desktop\ with mmrag-desktop.exe, mmrag.exe and _internal\)
;   2. iscc /DAppVersion=0.1.0 installer\windows\mmrag-desktop.iss
;      (gives dist\mmrag-desktop-0.1.0-windows-x64-setup.exe)
; Per-user install (no administrator rights), Start-menu entry, "Open with" for PDF/Markdown/images,
; the mmrag command on the user's PATH, and an uninstaller that keeps the user's libraries.

#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif

[Setup]
AppId={{6E0C6C3A-5E2B-4C1F-9F59-2C7D0A9B7E11}
AppName=mmrag-desktop
AppVersion={#AppVersion}
AppPublisher=mmrag-desktop developers
DefaultDirName={localappdata}\Programs\mmrag-desktop
DefaultGroupName=mmrag-desktop
PrivilegesRequired=lowest
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir=..\..\dist
OutputBaseFilename=mmrag-desktop-{#AppVersion}-windows-x64-setup
Compression=lzma2/max
SolidCompression=yes
LicenseFile=..\..\LICENSE
UninstallDisplayIcon={app}\mmrag-desktop.exe
ChangesEnvironment=yes

[Files]
Source: "..\..\dist\mmrag-desktop\*"; DestDir: "{app}"; Flags: recursesubdirs createallsubdirs ignoreversion
Source: "..\..\THIRD_PARTY_NOTICES.md"; DestDir: "{app}"; Flags: ignoreversion

[Icons]
Name: "{group}\mmrag-desktop"; Filename: "{app}\mmrag-desktop.exe"
Name: "{group}\Uninstall mmrag-desktop"; Filename: "{uninstallexe}"

[Registry]
; "Open with" for the file types the app reads; the file is passed as %1 and added to the library
Root: HKCU; Subkey: "Software\Classes\Applications\mmrag-desktop.exe\shell\open\command"; ValueType: string; ValueData: """{app}\mmrag-desktop.exe"" ""%1"""; Flags: uninsdeletekey
Root: HKCU; Subkey: "Software\Classes\.pdf\OpenWithList\mmrag-desktop.exe"; ValueType: string; ValueData: ""; Flags: uninsdeletekey
Root: HKCU; Subkey: "Software\Classes\.md\OpenWithList\mmrag-desktop.exe"; ValueType: string; ValueData: ""; Flags: uninsdeletekey
Root: HKCU; Subkey: "Software\Classes\.png\OpenWithList\mmrag-desktop.exe"; ValueType: string; ValueData: ""; Flags: uninsdeletekey
Root: HKCU; Subkey: "Software\Classes\.jpg\OpenWithList\mmrag-desktop.exe"; ValueType: string; ValueData: ""; Flags: uninsdeletekey
; the mmrag command line on the user's PATH
Root: HKCU; Subkey: "Environment"; ValueType: expandsz; ValueName: "Path"; ValueData: "{olddata};{app}"; Check: NeedsAddPath(ExpandConstant('{app}'))

[Run]
Filename: "{app}\mmrag-desktop.exe"; Parameters: "--self-test"; Description: "Check the installation (self-test)"; Flags: postinstall skipifsilent unchecked runhidden
Filename: "{app}\mmrag-desktop.exe"; Description: "Start mmrag-desktop"; Flags: postinstall skipifsilent nowait

[Code]
function NeedsAddPath(Dir: string): Boolean;
var
  Path: string;
begin
  if not RegQueryStringValue(HKEY_CURRENT_USER, 'Environment', 'Path', Path) then
    Result := True
  else
    Result := Pos(';' + Uppercase(Dir) + ';', ';' + Uppercase(Path) + ';') = 0;
end;
